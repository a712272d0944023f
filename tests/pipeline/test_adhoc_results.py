"""Runs started by hand write under their own Hydra output directory, never into results/ (the
sweep stage's DVC output, which the sweep names explicitly: tests/pipeline/test_sweep.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hydra.core.hydra_config import HydraConfig

from roundlab import paths
from roundlab.run import config


@pytest.fixture
def hydra_app():
    """set(cfg): make ``cfg``'s hydra node the running app's, as Hydra does for a job."""
    instance = HydraConfig.instance()
    before = instance.cfg
    yield instance.set_config
    instance.cfg = before


def test_a_single_run_writes_results_under_its_run_directory(hydra_app, tmp_path):
    cfg = config.compose([f"hydra.run.dir={tmp_path / 'outputs/a'}"], return_hydra_config=True)
    hydra_app(cfg)
    assert Path(cfg.results_dir) == (tmp_path / "outputs" / "a" / "results")


def test_every_job_of_a_multirun_writes_results_under_the_sweep_directory(hydra_app, tmp_path):
    overrides = ["hydra.mode=MULTIRUN", f"hydra.sweep.dir={tmp_path / 'mr'}"]
    cfg = config.compose(overrides, return_hydra_config=True)
    hydra_app(cfg)
    assert Path(cfg.results_dir) == (tmp_path / "mr" / "results")


def test_outside_a_hydra_app_runs_still_stay_out_of_the_pipeline_results():
    assert HydraConfig.instance().cfg is None
    default = Path(config.default_results_dir())
    assert default == paths.project_root() / "outputs" / "results"
    assert default != paths.results_dir()
