"""A results directory that cannot be written to stops a run or a sweep before anything trains,
and a disk that fills while a run saves leaves no partial file, its MLflow run FAILED and one
line naming the file (real processes, real MLflow stores)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from disk_faults import FULL_DISK_ENV, full_disk_command, read_only_dir
from roundlab.run.status import STATUS_FILE
from roundlab.tracking import store as tracking_store

from .processes import environment

RESULT = "count/regression/default/lr=0.02/seed={seed}"


def _run(tmp_path, cmd: list[str], **env: str) -> tuple[int, str, str]:
    done = subprocess.run(
        cmd, cwd=tmp_path, env=environment(tmp_path, **env), capture_output=True, text=True
    )
    return done.returncode, done.stdout, done.stderr


def _mlflow_runs(tmp_path) -> list:
    if not (tmp_path / "mlflow.db").is_file():
        return []
    client = tracking_store.client(environment(tmp_path)["MLFLOW_TRACKING_URI"])
    experiment = client.get_experiment_by_name("count")
    return client.search_runs([experiment.experiment_id]) if experiment else []


def _files(directory) -> list[str]:
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())


def test_a_results_dir_it_cannot_write_to_stops_a_single_run_before_training(tmp_path, tiny):
    readonly = tmp_path / "readonly"
    prefix = read_only_dir(readonly)
    train = [sys.executable, "-m", "roundlab.train", *tiny, "approach=regression"]
    cmd = [*prefix, *train, f"results_dir={readonly}", f"hydra.run.dir={tmp_path / 'run'}"]
    code, stdout, stderr = _run(tmp_path, cmd)
    assert code == 1, stderr
    assert stderr.strip().splitlines()[-1] == (
        "write error: results_dir must be a directory roundlab can write to. Received: "
        f"results_dir={readonly} (EACCES: Permission denied)"
    )
    assert "Traceback" not in stderr and "epoch" not in stdout + stderr
    assert _files(readonly) == [] and _mlflow_runs(tmp_path) == []


def test_a_results_dir_it_cannot_write_to_stops_the_sweep_before_any_multirun(tmp_path):
    readonly = tmp_path / "readonly"
    prefix = read_only_dir(readonly)
    (tmp_path / "params.yaml").write_text("profile: p\ndatasets: [count]\n")
    (tmp_path / "profiles.yaml").write_text("p: {datasets: [count], seeds: [0], tracking: true}\n")
    sweep = [sys.executable, "-m", "roundlab.sweep", "--params", str(tmp_path / "params.yaml")]
    cmd = [*prefix, *sweep, "--results", str(readonly), "--sweep-dir", str(tmp_path / "multirun")]
    code, stdout, stderr = _run(tmp_path, cmd)
    assert code == 1
    assert stderr == (
        "write error: --results must be a directory roundlab can write to. Received: "
        f"--results={readonly} (EACCES: Permission denied)\n"
    )
    assert stdout == "" and not (tmp_path / "multirun").exists() and _files(readonly) == []


def test_a_results_dir_it_cannot_write_to_trains_no_stacked_group(tmp_path, tiny):
    readonly = tmp_path / "readonly"
    prefix = read_only_dir(readonly)
    sweep = tmp_path / "sweep"
    train = [sys.executable, "-m", "roundlab.train", "-m", *tiny, "approach=regression"]
    options = [f"hydra.sweep.dir={sweep}", "hydra/launcher=vectorized"]
    cmd = [*prefix, *train, "seed=0,1", f"results_dir={readonly}", *options]
    code, stdout, stderr = _run(tmp_path, cmd)
    assert code == 0, stderr
    assert "sweep: 0 succeeded, 2 failed (0 of them reused)" in stdout
    statuses = [json.loads(p.read_text()) for p in sorted(sweep.rglob(STATUS_FILE))]
    # each job stopped at its own check, before a session started: the group never trained
    assert [s["error"] for s in statuses] == 2 * [
        "write error: results_dir must be a directory roundlab can write to. Received: "
        f"results_dir={readonly} (EACCES: Permission denied)"
    ]
    assert _files(readonly) == []


@pytest.mark.parametrize("full", ["seed=0.keras", "seed=0.json"], ids=["model", "result"])
def test_a_full_disk_while_a_run_saves_leaves_no_partial_file_and_its_mlflow_run_failed(
    tmp_path, tiny, full
):
    results = tmp_path / "results"
    args = [*tiny, "approach=regression", f"results_dir={results}"]
    cmd = full_disk_command("roundlab.train", *args, f"hydra.run.dir={tmp_path / 'run'}")
    code, _, stderr = _run(tmp_path, cmd, **{FULL_DISK_ENV: full})
    failed = results / RESULT.format(seed=0)
    path = failed.with_suffix(".keras" if full.endswith(".keras") else ".json")
    line = (
        f"write error: {path} must be written whole; nothing partial was left (free space or "
        "fix the permissions, then run again). Received: ENOSPC: No space left on device"
    )
    assert code == 1 and stderr.strip().splitlines()[-1] == line
    assert "Traceback" not in stderr
    assert _files(results) == []  # neither file, nor a temporary
    (run,) = _mlflow_runs(tmp_path)
    assert run.info.status == "FAILED"
    assert run.data.tags["roundlab.error"] == line


def test_a_full_disk_in_a_stacked_group_fails_that_member_and_the_sweep_goes_on(tmp_path, tiny):
    results = tmp_path / "results"
    args = [*tiny, "approach=regression", "seed=0,1", f"results_dir={results}"]
    sweep = tmp_path / "sweep"
    cmd = full_disk_command(
        "roundlab.train", "-m", *args, f"hydra.sweep.dir={sweep}", "hydra/launcher=vectorized"
    )
    code, stdout, stderr = _run(tmp_path, cmd, **{FULL_DISK_ENV: "seed=1.json"})
    assert code == 0, stderr
    assert "sweep: 1 succeeded, 1 failed (0 of them reused)" in stdout
    kept = RESULT.format(seed=0)
    assert _files(results) == [f"{kept}.json", f"{kept}.keras"]
    statuses = [json.loads(p.read_text()) for p in sorted(sweep.rglob(STATUS_FILE))]
    assert [s["status"] for s in statuses] == ["FINISHED", "FAILED"]
    assert statuses[1]["error"].startswith(f"write error: {results / RESULT.format(seed=1)}.json")
    runs = {r.info.run_name: r.info.status for r in _mlflow_runs(tmp_path)}
    assert sorted(v for k, v in runs.items() if "seed=" in k) == ["FAILED", "FINISHED"]
