"""`python -m roundlab.sweep` in a temporary project, as real processes: a sweep killed with
SIGKILL resumes and trains only what is missing, ends with the results of an uninterrupted
sweep; a changed value retrains; a run dropped from the plan loses its result file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from roundlab import results

pytestmark = pytest.mark.slow

SMALL = ["n_train=300", "n_val=100", "n_test=100", "n_extrapolate=100"]


def _project(tmp_path: Path, **profile) -> Path:
    """A project root whose params.yaml names the profile ``p`` of its profiles.yaml (2 epochs,
    small data)."""
    base = {
        "datasets": ["count"],
        "seeds": [0, 1, 2],
        "approaches": ["classification", "regression"],
        "overrides": ["trainer.epochs=2", "model.hidden_sizes=[16]", "trainer.batch_size=32"],
        "dataset_overrides": {"count": SMALL},
        "tracking": False,
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"datasets": ["count"], "profile": "p"}))
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump({"p": {**base, **profile}}))
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    return tmp_path


def _sweep(root: Path, *args: str, **popen) -> subprocess.Popen:
    env = {**os.environ, "ROUNDLAB_ROOT": str(root), "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "roundlab.sweep", "--params", str(root / "params.yaml"), *args]
    return subprocess.Popen(cmd, cwd=root, env=env, text=True, **popen)


def _finished(root: Path, *args: str) -> str:
    proc = _sweep(root, *args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    return out


def _files(root: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (root / "results").rglob("seed=*.json")}


def _metrics(root: Path) -> dict[str, dict]:
    return {str(p.relative_to(root)): results.read(p).metrics for p in _files(root)}


def test_a_killed_sweep_resumes_with_the_missing_runs_only_and_matches_a_fresh_sweep(tmp_path):
    root = _project(tmp_path, launcher="basic", approaches=["regression"])
    killed = _sweep(
        root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while not _files(root) and killed.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(killed.pid, signal.SIGKILL)  # the sweep and its multirun, as a crash would
    killed.wait(timeout=30)
    before = _files(root)
    k = len(before)
    assert 0 < k < 3, f"the kill came after {k} of 3 result files"

    out = _finished(root)
    after = _files(root)
    assert f"sweep: 3 of 3 result files present, {k} reused" in out
    assert {p: after[p] for p in before} == before  # the k kept files were not rewritten
    assert len(set(after) - set(before)) == 3 - k  # exactly the n - k others ran
    resumed = _metrics(root)

    out = _finished(root, "--fresh")
    assert "sweep: 3 of 3 result files present, 0 reused" in out
    fresh = _files(root)
    assert all(fresh[p] != after[p] for p in after)  # every run trained again
    assert _metrics(root) == resumed  # crash + resume gives an uninterrupted sweep's results
    assert not list((root / "results").rglob("*.tmp"))


def test_a_changed_value_retrains_and_a_dropped_run_loses_its_result_file(tmp_path):
    root = _project(tmp_path, seeds=[0])
    _finished(root)
    files = _files(root)
    assert len(files) == 2
    dropped = next(p for p in files if "/classification/" in p.as_posix())

    out = _finished(root)  # the same plan: nothing trains (vectorised launcher)
    assert "sweep: 2 of 2 result files present, 2 reused" in out
    assert _files(root) == files

    _project(
        tmp_path,
        seeds=[0],
        approaches=["regression"],
        overrides=["trainer.epochs=3", "model.hidden_sizes=[16]", "trainer.batch_size=32"],
    )
    out = _finished(root)
    assert "sweep: removed 1 result file(s) of runs no longer planned" in out
    assert "sweep: 1 of 1 result files present, 0 reused" in out
    (kept,) = _files(root)
    assert not dropped.exists() and not dropped.parent.parent.exists()
    assert _files(root)[kept] != files[kept]
    assert results.read(kept).config["trainer"]["epochs"] == 3


def test_sigterm_to_the_sweep_reaches_its_multiruns_which_record_their_runs_killed(tmp_path):
    """A scheduler signals only the sweep's process: the sweep passes SIGTERM on to every running
    multirun (two at once here), whose runs end KILLED, and exits 143 with one line."""
    root = _project(
        tmp_path,
        launcher="basic",
        approaches=["regression"],
        activations={"ste_round": None},
        seeds=[0],
        processes=2,
    )
    profiles = yaml.safe_load((root / "profiles.yaml").read_text())
    profiles["p"]["overrides"][0] = "trainer.epochs=100000"
    profiles["p"]["overrides"].append("trainer.early_stopping.enabled=false")
    (root / "profiles.yaml").write_text(yaml.safe_dump(profiles))
    proc = _sweep(root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    # each worker's first job: no task ends, so each of the two takes one
    jobs = [root / "multirun" / worker / "0" for worker in ("worker-1", "worker-2")]
    while not all(j.is_dir() for j in jobs) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert all(j.is_dir() for j in jobs), f"no job started in {jobs} (sweep exit {proc.poll()})"
    time.sleep(8)  # into training: past the TensorFlow import of the multirun
    sent = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and time.monotonic() - sent < 30
    assert "sweep interrupted by SIGTERM" in err
    killed = {
        p.relative_to(root / "results").parts[1]: results.read(p).status for p in _files(root)
    }
    assert killed == {"regression": results.KILLED, "rounding": results.KILLED}
