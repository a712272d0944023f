"""Stacked groups as submitit jobs (hydra/launcher=vectorized_submitit_local), end to end: real
training in real job processes, compared with the in-process vectorised launcher."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from roundlab import results
from roundlab.sweep.cluster import executor_parameters
from roundlab.tracking import store as tracking_store

pytestmark = pytest.mark.slow

# Four stacked groups of two members (one per activation, seeds 0 and 1): four jobs.
GRID = ["approach=rounding", "activation=soft_round,sigmoid_round,ste_round,sine_round", "seed=0,1"]


def _command(tmp_path, tiny, name, launcher):
    return [
        sys.executable,
        "-m",
        "roundlab.train",
        "-m",
        *tiny,
        "trainer.epochs=2",
        *GRID,
        f"results_dir={tmp_path / name / 'results'}",
        f"hydra.sweep.dir={tmp_path / name / 'sweep'}",
        f"hydra/launcher={launcher}",
    ]


def _env(tmp_path, name):
    uri = f"sqlite:///{tmp_path / name / 'mlflow.db'}"
    return {**os.environ, "MLFLOW_TRACKING_URI": uri, "TF_CPP_MIN_LOG_LEVEL": "2"}


def _sweep(tmp_path, tiny, name, launcher, during=None):
    (tmp_path / name).mkdir(exist_ok=True)
    proc = subprocess.Popen(
        _command(tmp_path, tiny, name, launcher),
        cwd=tmp_path,
        env=_env(tmp_path, name),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watcher = threading.Thread(target=during, daemon=True) if during else None
    if watcher:
        watcher.start()
    stdout, stderr = proc.communicate(timeout=900)
    assert proc.returncode == 0, stderr[-3000:]
    return stdout + stderr


def _results(results_dir: Path) -> dict[str, results.RunResult]:
    return {str(p.relative_to(results_dir)): results.read(p) for p in results_dir.rglob("*.json")}


def _kill_first_job(submitit_dir: Path, killed: list[str]):
    """SIGKILL the task process of the first submitted local job (its controller's child),
    long before it has imported TensorFlow: the job dies without output."""

    def watch():
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            ids = sorted(int(p.name) for p in submitit_dir.glob("[0-9]*") if p.is_dir())
            children = Path(f"/proc/{ids[0]}/task/{ids[0]}/children") if ids else None
            pids = children.read_text().split() if children and children.exists() else []
            if pids:
                os.kill(int(pids[0]), signal.SIGKILL)
                killed.append(str(ids[0]))
                return
            time.sleep(0.2)

    return watch


def test_groups_as_local_jobs_match_in_process_survive_a_killed_job_and_resume(tmp_path, tiny):
    _sweep(tmp_path, tiny, "inproc", "vectorized")
    reference = _results(tmp_path / "inproc" / "results")
    assert len(reference) == 8 and all(r.ok for r in reference.values())

    killed: list[str] = []
    watch = _kill_first_job(tmp_path / "jobs" / "sweep" / ".submitit", killed)
    log = _sweep(tmp_path, tiny, "jobs", "vectorized_submitit_local", during=watch)
    assert "4 job(s) submitted through submitit (local)" in log
    assert "sweep: 6 succeeded, 2 failed (0 of them reused)" in log
    got = _results(tmp_path / "jobs" / "results")
    assert sorted(got) == sorted(reference)
    failed = {k: r for k, r in got.items() if r.status == results.FAILED}
    assert len(failed) == 2 and len({r.activation for r in failed.values()}) == 1
    for r in failed.values():  # the dead job's members, recorded by the launcher
        assert r.error.startswith(f"cluster job {killed[0]} failed: ")
        assert r.engine == {"name": "vectorized", "group_size": 2}
    for key, r in got.items():
        if key not in failed:  # trained in a job: the same numbers as in process
            assert r.engine["name"] == "vectorized" and r.engine["group_size"] == 2
            assert r.metrics == reference[key].metrics, key
            assert r.history == reference[key].history, key
            assert r.fingerprint == reference[key].fingerprint
    client = tracking_store.client(_env(tmp_path, "jobs")["MLFLOW_TRACKING_URI"])
    runs = client.search_runs([client.get_experiment_by_name("count").experiment_id])
    by_id = {r.info.run_id: r.info.status for r in runs}
    assert sorted(by_id[r.mlflow_run_id] for r in got.values()) == ["FAILED"] * 2 + ["FINISHED"] * 6

    log = _sweep(tmp_path, tiny, "jobs", "vectorized_submitit_local")
    assert "sweep: 8 succeeded, 0 failed (6 of them reused)" in log
    assert "1 job(s) submitted through submitit (local)" in log  # the failed group only
    again = _results(tmp_path / "jobs" / "results")
    for key, r in again.items():
        assert r.ok and r.metrics == reference[key].metrics, key
        if key not in failed:  # reused: the very file the first sweep's job wrote
            assert r.mlflow_run_id == got[key].mlflow_run_id


def test_slurm_keys_get_submitit_names_as_hydra_submitit_launcher_gives_them():
    params = {"timeout_min": 240, "gpus_per_node": 1, "mem_gb": None, "partition": "gpu"}
    params |= {"array_parallelism": 64, "setup": ["module load cuda"]}
    assert executor_parameters(params, "slurm") == {
        "timeout_min": 240,
        "gpus_per_node": 1,
        "slurm_partition": "gpu",
        "slurm_array_parallelism": 64,
        "slurm_setup": ["module load cuda"],
    }
