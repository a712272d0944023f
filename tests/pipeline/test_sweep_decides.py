"""The sweep decides before it starts (:mod:`roundlab.sweep.decide`): it fingerprints every job as
its multirun would, in its own process and without TensorFlow, and starts workers only for the
jobs left; a rerun with every run reusable starts none."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser

from roundlab.run.config import compose
from roundlab.run.fingerprint import fingerprint
from roundlab.runs import RunKey
from roundlab.sweep import decide, resamples
from roundlab.sweep.jobs import job_configs, member_values
from roundlab.sweep.plan import command, plan
from roundlab.sweep.preview import job_overrides
from roundlab.sweep.profile import load_profile
from roundlab.sweep.schedule import training_configs


def test_the_sweep_fingerprints_every_job_as_its_multirun_does(
    tmp_path, monkeypatch, sweep_project
):
    root = sweep_project(tmp_path)
    monkeypatch.setenv("ROUNDLAB_ROOT", str(root))
    profile = load_profile(root / "params.yaml")
    results_dir = root / "results"
    common = decide.common_overrides(profile, results_dir)
    checked = 0
    before = HydraConfig.instance().cfg
    for m in plan(profile, resamples_of=resamples.from_configs):
        overrides = job_overrides(command(m, profile, results_dir, root / "multirun"))
        launched = training_configs(
            job_configs(lambda o: compose(o, return_hydra_config=True), overrides)
        )
        assert HydraConfig.instance().cfg is before  # left as run_job leaves it
        bases: decide.Bases = {}
        for job, cfg in zip(decide.expand(m.overrides), launched, strict=True):
            full = [*job, *common]
            signature, values = member_values(OverridesParser.create().parse_overrides(full))
            base = decide._base(bases, signature, full, None)
            assert base.key(values) == RunKey.from_config(cfg)
            assert base.fingerprint(values) == fingerprint(cfg), job
            checked += 1
    assert checked == 4 + 8 + 4  # regression, the sigmoid_round grid, hard_round


def _sweep(root: Path, code: str = "") -> subprocess.CompletedProcess:
    """``python -m roundlab.sweep`` in ``root``; ``code`` runs after it in the same process."""
    script = (
        "import sys\nfrom roundlab.sweep.cli import main\n"
        f"code = main(['--params', {str(root / 'params.yaml')!r}])\n{code}\nsys.exit(code)\n"
    )
    env = {**os.environ, "ROUNDLAB_ROOT": str(root)}
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=root,
        env=env,
        text=True,
        capture_output=True,
        timeout=600,
    )


def _log(root: Path) -> dict:
    return yaml.safe_load((root / "multirun" / "_sweep_log.yaml").read_text())


def _result_files(root: Path) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in (root / "results").rglob("seed=*.json")}


@pytest.mark.slow
def test_a_rerun_with_every_run_reusable_starts_no_multirun_and_imports_no_tensorflow(
    tmp_path, sweep_project
):
    root = sweep_project(tmp_path)
    first = _sweep(root)
    assert first.returncode == 0, first.stderr[-3000:]
    trained = _result_files(root)
    assert len(trained) == len(
        [
            p
            for p in yaml.safe_load((root / "results" / "count" / "_sweep.yaml").read_text())[
                "planned"
            ]
        ]
    )

    again = _sweep(root, "assert 'tensorflow' not in sys.modules, 'TensorFlow was imported'")
    assert again.returncode == 0, again.stderr[-3000:]
    log = _log(root)
    assert log["multiruns"] == []
    assert log["reused_before_start"] == len(trained)
    n = len(trained)
    assert f"sweep: {n} of {n} result files present, {n} reused" in again.stdout
    assert _result_files(root) == trained  # nothing rewritten
    assert not (root / "multirun" / "worker-1").exists()

    # One result file lost: one worker starts, for that job alone.
    lost = root / "results/count/rounding/sigmoid_round-steepness=5/lr=0.01/seed=0.json"
    assert lost in trained
    lost.unlink()
    third = _sweep(root)
    assert third.returncode == 0, third.stderr[-3000:]
    log = _log(root)
    assert [(e["runs"], e["reused"], e["exit_code"]) for e in log["multiruns"]] == [(1, 0, 0)]
    assert log["reused_before_start"] == n - 1
    assert log["rounds"][0] == {"round": 0, "runs": 16, "reused": 15, "tasks": 1}
    assert lost.is_file()
    assert {p: t for p, t in _result_files(root).items() if p != lost} == {
        p: t for p, t in trained.items() if p != lost
    }


def test_a_family_whose_configs_cannot_be_composed_is_left_whole_to_its_multirun(
    tmp_path, monkeypatch, sweep_project
):
    root = sweep_project(tmp_path)
    monkeypatch.setenv("ROUNDLAB_ROOT", str(root))
    profile = load_profile(root / "params.yaml")
    profile = replace(profile, overrides=(*profile.overrides, "model.no_such_key=1"))
    batch = plan(profile, resamples_of=resamples.from_configs)
    _present(batch, root / "results")  # so each family is composed, not left whole at once
    decision = decide.decide(batch, profile, root / "results")
    assert decision.left == batch and decision.reused == []


def _present(batch, results_dir: Path) -> None:
    """A stand-in result file for the first run of each of ``batch``'s multiruns."""
    for m in batch:
        path = m.result_files(results_dir)[0]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")


def test_a_family_with_no_result_file_goes_whole_without_a_composition(
    tmp_path, monkeypatch, sweep_project
):
    root = sweep_project(tmp_path)
    monkeypatch.setenv("ROUNDLAB_ROOT", str(root))
    profile = load_profile(root / "params.yaml")
    batch = plan(profile, resamples_of=resamples.from_configs)
    composed = []
    monkeypatch.setattr(decide, "compose", lambda overrides: composed.append(overrides))
    decision = decide.decide(batch, profile, root / "results")
    assert decision.left == batch and decision.reused == [] and composed == []
    _present(batch[:1], root / "results")  # one file present: that family is composed
    monkeypatch.setattr(decide, "compose", compose)
    decision = decide.decide(batch, profile, root / "results")
    assert decision.left[0].jobs and decision.left[1:] == batch[1:]
