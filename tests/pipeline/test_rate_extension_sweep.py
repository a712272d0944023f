"""`python -m roundlab.sweep` with rate extensions, as real processes in a temporary project:
a configuration whose higher rate wins after 2 epochs is trained one x3 step further, only the
listed runs of the extension's cross product train, the manifest and the log name the round,
and a resumed sweep reuses every run and leaves results/ byte-identical."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from roundlab import results
from roundlab.runs import RunKey
from roundlab.sweep import extend
from roundlab.sweep.plan import plan
from roundlab.sweep.profile import load_profile
from roundlab.sweep.resamples import from_configs

pytestmark = pytest.mark.slow

SMALL = ["n_train=300", "n_val=100", "n_test=100", "n_extrapolate=100"]


def _project(tmp_path: Path, **profile) -> Path:
    base = {
        "datasets": ["count"],
        "seeds": [0, 1],
        # two epochs at 3e-4 barely move the network: the higher rate wins on val
        "learning_rates": [0.0003, 0.003],
        "approaches": ["regression", "classification"],
        "overrides": ["trainer.epochs=2", "model.hidden_sizes=[16]", "trainer.batch_size=32"],
        "dataset_overrides": {"count": SMALL},
        "tracking": False,
        "rate_extensions": 1,
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"datasets": ["count"], "profile": "p"}))
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump({"p": {**base, **profile}}))
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    return tmp_path


def _sweep(root: Path) -> str:
    env = {**os.environ, "ROUNDLAB_ROOT": str(root), "TF_CPP_MIN_LOG_LEVEL": "2"}
    cmd = [sys.executable, "-m", "roundlab.sweep", "--params", str(root / "params.yaml")]
    proc = subprocess.run(cmd, cwd=root, env=env, text=True, capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "results").rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def test_an_edge_is_extended_and_a_resumed_sweep_reuses_every_run(tmp_path):
    root = _project(tmp_path)
    out = _sweep(root)
    manifest = yaml.safe_load((root / "results" / "count" / "_sweep.yaml").read_text())
    extended = [p for p in manifest["planned"] if "/lr=0.009/" in p]
    # regression after 2 epochs is better at 0.003 than at 0.0003: trained at 0.009, both seeds
    assert "count/regression/default/lr=0.009/seed=0.json" in extended
    assert "count/regression/default/lr=0.009/seed=1.json" in extended
    assert len(manifest["planned"]) == 8 + len(extended)
    assert f"sweep round 1: {len(extended)} extension runs" in out
    # exactly the planned files: the extension's other jobs were dropped before training
    files = {p.relative_to(root / "results").as_posix() for p in root.rglob("seed=*.json")}
    assert files == set(manifest["planned"])
    for p in extended:
        assert results.read(root / "results" / p).ok
    log = yaml.safe_load((root / "multirun" / "_sweep_log.yaml").read_text())
    # one worker ran both rounds: one process start for the whole sweep
    assert [e["families"] for e in log["multiruns"]] == [
        ["approaches", "rate_extensions/1/approaches"]
    ]
    assert log["multiruns"][0]["runs"] == 8 + len(extended)
    assert log["rounds"] == [
        {"round": 0, "runs": 8, "reused": 0, "tasks": 1},
        {"round": 1, "runs": len(extended), "reused": 0, "tasks": 1},
    ]
    # the bound (1 step per side) keeps a still-improving choice at its edge: no round 2
    profile = load_profile(root / "params.yaml")
    multiruns = plan(profile, resamples_of=from_configs)
    assert extend.all_rounds(profile, multiruns, root / "results")[0].runs == tuple(
        RunKey.of("count", a, seed=s, learning_rate=0.009)
        for a in ("regression", "classification")
        for s in (0, 1)
        if f"count/{a}/default/lr=0.009/seed={s}.json" in extended
    )
    assert "round 2" not in out

    before = _tree(root)
    # a file at a rate an extension could reach but no round plans: kept by the first prune,
    # removed once the rounds end
    stray = RunKey.of("count", "regression", seed=0, learning_rate=0.0001)
    old = results.read(root / "results" / manifest["planned"][0])
    old.config["trainer"]["learning_rate"] = 0.0001
    results.write(old, stray.result_path(root / "results"))
    out = _sweep(root)
    total = len(manifest["planned"])
    assert f"sweep: {total} of {total} result files present, {total} reused, in " in out
    assert f"s ({len(extended)} of the runs rate extensions, in 1 round(s))" in out
    assert _tree(root) == before  # nothing retrained, the manifest rewritten identically
    assert not stray.result_path(root / "results").exists()


@pytest.mark.parametrize(
    ("launcher", "statuses"),
    [("vectorized", ["FINISHED"]), ("basic", ["FINISHED", "SKIPPED"])],
)
def test_a_job_off_the_allow_list_trains_nothing_and_is_not_counted(
    tmp_path, tiny, launcher, statuses
):
    """The vectorised launcher drops a job not on sweep.only from its job list (no job
    directory); with the other launchers the ordinary task returns at once, marked SKIPPED.
    Either way it writes no result file and is not counted as a failure."""
    only = tmp_path / "only.yaml"
    only.write_text(yaml.safe_dump(["count/regression/default/lr=0.02/seed=1.json"]))
    cmd = [
        sys.executable,
        "-m",
        "roundlab.train",
        "-m",
        *tiny,
        "approach=regression",
        "seed=0,1",
        f"results_dir={tmp_path / 'results'}",
        "tracking.enabled=false",
        f"sweep.only={only}",
        f"hydra.sweep.dir={tmp_path / 'multirun'}",
        f"hydra/launcher={launcher}",
    ]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    proc = subprocess.run(cmd, env=env, text=True, capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    files = sorted(p.name for p in (tmp_path / "results").rglob("seed=*.json"))
    assert files == ["seed=1.json"]
    assert "sweep: 1 succeeded, 0 failed (0 of them reused)" in proc.stdout
    found = [
        json.loads(p.read_text())["status"]
        for p in sorted((tmp_path / "multirun").rglob("roundlab_status.json"))
    ]
    assert sorted(found) == statuses
