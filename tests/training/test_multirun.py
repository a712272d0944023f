"""Real sweeps through `python -m roundlab.train -m`, read back from a real sqlite store."""

import json
import os
import subprocess
import sys

import pytest

from roundlab import results
from roundlab.run.status import STATUS_FILE
from roundlab.tracking import store as tracking_store

pytestmark = pytest.mark.slow


def _sweep(tmp_path, tiny, *overrides):
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    env = {**os.environ, "MLFLOW_TRACKING_URI": uri, "TF_CPP_MIN_LOG_LEVEL": "2"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roundlab.train",
            "-m",
            *tiny,
            "trainer.epochs=2",
            f"results_dir={tmp_path / 'results'}",
            f"hydra.sweep.dir={tmp_path / 'sweep'}",
            *overrides,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout, tracking_store.client(uri)


def _parent_and_children(client):
    exp = client.get_experiment_by_name("count")
    runs = client.search_runs([exp.experiment_id])
    parents = [r for r in runs if r.data.tags.get("roundlab.role") == "sweep"]
    assert len(parents) == 1
    children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == parents[0].info.run_id]
    return parents[0], children


def test_2x2_sweep_survives_hard_round_and_nests_four_runs_under_one_parent(tmp_path, tiny):
    stdout, client = _sweep(
        tmp_path, tiny, "approach=rounding", "activation=soft_round,hard_round", "seed=0,1"
    )
    expected = "2 expected failures (hard_round control)"  # no gradient: the negative control
    assert f"sweep: 2 succeeded, 0 failed, {expected} (0 of them reused)" in stdout
    files = sorted((tmp_path / "results").rglob("*.json"))
    assert len(files) == 4
    by_status = {}
    for path in files:
        result = results.read(path)
        by_status.setdefault(result.status, []).append(result)
    assert {r.activation for r in by_status[results.FINISHED]} == {"soft_round"}
    assert all(r.error.startswith("no gradient") for r in by_status[results.FAILED])

    parent, children = _parent_and_children(client)
    assert len(children) == 4
    assert sorted(c.info.status for c in children) == ["FAILED", "FAILED", "FINISHED", "FINISHED"]
    assert parent.info.status == "FINISHED"
    assert parent.data.metrics == {
        "jobs_finished": 2.0,
        "jobs_failed": 0.0,
        "jobs_killed": 0.0,
        "jobs_expected_failures": 2.0,
    }
    ids = {r.mlflow_run_id for rs in by_status.values() for r in rs}
    assert ids == {c.info.run_id for c in children}


def test_joblib_sweep_shares_one_parent_across_processes_and_survives_a_bad_value(tmp_path, tiny):
    stdout, client = _sweep(
        tmp_path,
        tiny,
        "hydra/launcher=joblib",
        "hydra.launcher.n_jobs=2",
        "approach=rounding",
        "activation=sine_round",
        "activation.width=0.25,0.5,1.5",
    )
    assert "sweep: 2 succeeded, 1 failed (0 of them reused)" in stdout
    assert len(list((tmp_path / "results").rglob("*.json"))) == 2  # the bad value never ran
    statuses = [json.loads(p.read_text()) for p in (tmp_path / "sweep").rglob(STATUS_FILE)]
    failed = [s for s in statuses if s["status"] == results.FAILED]
    assert len(failed) == 1 and "activation.width=1.5" in failed[0]["error"]
    _, children = _parent_and_children(client)
    assert len(children) == 2


def test_vectorized_sweep_records_every_member_as_its_own_job(tmp_path, tiny):
    stdout, client = _sweep(
        tmp_path,
        tiny,
        "hydra/launcher=vectorized",
        "approach=rounding",
        "activation=soft_round,sigmoid_round_np,hard_round",
        "seed=0,1",
    )
    # soft_round: one stacked group; sigmoid_round_np: alone (numpy-backed); hard_round: a
    # group that fails as a whole (no gradient).
    expected = "2 expected failures (hard_round control)"
    assert f"sweep: 4 succeeded, 0 failed, {expected} (0 of them reused)" in stdout
    by_activation = {}
    for path in (tmp_path / "results").rglob("*.json"):
        result = results.read(path)
        by_activation.setdefault(result.activation, []).append(result)
    soft, numpy_twin, hard = (
        by_activation[a] for a in ("soft_round", "sigmoid_round_np", "hard_round")
    )
    assert [r.engine["name"] for r in soft] == ["vectorized"] * 2
    assert {r.engine["group_size"] for r in soft} == {2} and len(
        {r.engine["group"] for r in soft}
    ) == 1
    assert [r.engine["name"] for r in numpy_twin] == ["single"] * 2 and all(
        r.ok for r in numpy_twin
    )
    assert all(r.status == results.FAILED and r.error.startswith("no gradient") for r in hard)
    statuses = [
        json.loads(p.read_text())["status"] for p in (tmp_path / "sweep").rglob(STATUS_FILE)
    ]
    assert sorted(statuses) == ["FAILED", "FAILED", "FINISHED", "FINISHED", "FINISHED", "FINISHED"]
    parent, children = _parent_and_children(client)
    assert len(children) == 6
    assert parent.data.metrics == {
        "jobs_finished": 4.0,
        "jobs_failed": 0.0,
        "jobs_killed": 0.0,
        "jobs_expected_failures": 2.0,
    }
    tags = {c.info.run_id: c.data.tags for c in children}
    for r in soft:
        assert tags[r.mlflow_run_id]["roundlab.engine"] == "vectorized"
        assert tags[r.mlflow_run_id]["roundlab.group_size"] == "2"


@pytest.mark.parametrize("bad", ["seed=0,zero", "trainer.epochs=2,two"])
def test_a_bad_override_stops_a_vectorized_multirun_before_any_job_trains(tmp_path, tiny, bad):
    key = bad.split("=")[0]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roundlab.train",
            "-m",
            *tiny,
            "hydra/launcher=vectorized",
            "approach=regression",
            "tracking.enabled=false",
            f"results_dir={tmp_path / 'results'}",
            f"hydra.sweep.dir={tmp_path / 'sweep'}",
            bad,
        ],
        cwd=tmp_path,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode != 0
    assert key in run.stderr and bad.split(",")[1] in run.stderr, run.stderr[-2000:]
    assert not list(tmp_path.rglob("*.json"))  # no job trained, none recorded
