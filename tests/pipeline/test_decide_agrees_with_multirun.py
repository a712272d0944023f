"""Cases where the sweep's own reuse decision (:mod:`roundlab.sweep.decide`) differs from the
rule its multirun applies (:mod:`roundlab.sweep.resume`): each must decide as the multirun does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hydra.core.override_parser.overrides_parser import OverridesParser

from roundlab.run.config import compose, resolve
from roundlab.run.fingerprint import fingerprint
from roundlab.sweep import decide, resamples
from roundlab.sweep.jobs import member_values
from roundlab.sweep.plan import plan
from roundlab.sweep.profile import load_profile

SMALL = ["n_train=300", "n_val=100", "n_test=100", "n_extrapolate=100"]


def _project(root: Path, overrides: list[str]) -> Path:
    profile = {
        "seeds": [0, 1],
        "approaches": ["regression"],
        "learning_rates": [0.01],
        "overrides": ["trainer.epochs=2", *overrides],
        "dataset_overrides": {"count": SMALL},
        "tracking": False,
        "rate_extensions": 0,
    }
    (root / "params.yaml").write_text(yaml.safe_dump({"datasets": {"count": {}}, "profile": "p"}))
    (root / "profiles.yaml").write_text(yaml.safe_dump({"p": profile}))
    (root / "dvc.yaml").write_text("stages: {}\n")
    return root


def test_a_config_value_interpolating_the_seed_gives_each_job_its_own_fingerprint(
    tmp_path, monkeypatch
):
    # dataset.seed=${seed}: each seed's job trains on its own data. The sweep resolves the first
    # job's config and sets only the seed leaf for the others, so the seed=1 job gets the seed=0
    # job's dataset.seed and data hash: after adding this override to a profile that trained with
    # dataset.seed=0, the seed=1 results are kept although their data changed.
    root = _project(tmp_path, ["dataset.seed=${seed}"])
    monkeypatch.setenv("ROUNDLAB_ROOT", str(root))
    profile = load_profile(root / "params.yaml")
    (m,) = plan(profile, resamples_of=resamples.from_configs)
    common = decide.common_overrides(profile, root / "results")
    bases: decide.Bases = {}
    for job in decide.expand(m.overrides):
        full = [*job, *common]
        signature, values = member_values(OverridesParser.create().parse_overrides(full))
        derived = decide._base(bases, signature, full, None).fingerprint(values)
        assert derived == fingerprint(resolve(compose(full))), job


@pytest.mark.slow
def test_a_profile_that_turns_resume_off_retrains_every_job(tmp_path):
    # profiles.<p>.overrides may hold sweep.resume=false (only sweep.only and sweep.jobs are
    # refused), which makes every multirun retrain every job; the sweep drops every sweep.* key
    # from what it composes and sets the reusable jobs aside before any multirun starts.
    root = _project(tmp_path, [])
    assert _sweep(root).returncode == 0
    trained = {p: p.stat().st_mtime_ns for p in (root / "results").rglob("seed=*.json")}
    assert len(trained) == 2
    profiles = yaml.safe_load((root / "profiles.yaml").read_text())
    profiles["p"]["overrides"].append("sweep.resume=false")
    (root / "profiles.yaml").write_text(yaml.safe_dump(profiles))
    again = _sweep(root)
    assert again.returncode == 0, again.stderr[-3000:]
    log = yaml.safe_load((root / "multirun" / "_sweep_log.yaml").read_text())
    assert log["reused_before_start"] == 0
    assert all(p.stat().st_mtime_ns != t for p, t in trained.items())


def _sweep(root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "ROUNDLAB_ROOT": str(root)}
    return subprocess.run(
        [sys.executable, "-m", "roundlab.sweep", "--params", str(root / "params.yaml")],
        cwd=root,
        env=env,
        text=True,
        capture_output=True,
        timeout=600,
    )
