"""The total a multirun's progress line counts down from is the number of jobs Hydra's basic
sweeper makes: the grid of an experiment config (``hydra.sweeper.params``) times the sweeps of
the command line, a key of both taking the command line's values."""

from __future__ import annotations

import pytest
import yaml
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import RunMode

from roundlab import paths
from roundlab.run.config import register_configs
from roundlab.sweep.callback import planned_jobs

GRID = yaml.safe_load((paths.CONF_DIR / "experiment" / "steepness.yaml").read_text())["hydra"][
    "sweeper"
]["params"]
STEEPNESS, SEEDS = (len(str(GRID[k]).split(",")) for k in ("activation.steepness", "seed"))


def _multirun_config(overrides: list[str]):
    """The config a multirun's callbacks get for ``python -m roundlab.train -m <overrides>``."""
    register_configs()
    with initialize_config_dir(config_dir=str(paths.CONF_DIR), version_base="1.3"):
        hydra = GlobalHydra.instance().hydra
        return hydra.compose_config("config", overrides, run_mode=RunMode.MULTIRUN)


@pytest.mark.parametrize(
    ("overrides", "jobs"),
    [
        (["approach=regression", "seed=0,1,2"], 3),
        (["+experiment=steepness", "dataset=count"], STEEPNESS * SEEDS),
        (["+experiment=steepness", "seed=0,1"], STEEPNESS * 2),
        (["+experiment=steepness", "activation.steepness=5"], SEEDS),
        (["+experiment=steepness", "trainer.learning_rate=0.001,0.01"], STEEPNESS * SEEDS * 2),
    ],
)
def test_the_total_counts_an_experiments_grid(overrides, jobs):
    assert STEEPNESS > 1 and SEEDS > 1  # the grid this test is about
    cfg = _multirun_config(overrides)
    assert planned_jobs(cfg) == jobs


def test_a_multirun_of_listed_jobs_counts_the_jobs_its_file_lists(tmp_path):
    listed = tmp_path / "jobs.yaml"
    listed.write_text(yaml.safe_dump([["seed=0"], ["seed=1"], ["seed=2", "approach=poisson"]]))
    assert planned_jobs(_multirun_config([f"sweep.jobs={listed}"])) == 3


@pytest.mark.parametrize("text", [None, "[unclosed", "a: mapping"])
def test_a_jobs_file_that_cannot_be_counted_shows_no_total(tmp_path, text):
    """The sweeper refuses it with its own message; the progress line does not guess."""
    listed = tmp_path / "jobs.yaml"
    if text is not None:
        listed.write_text(text)
    assert planned_jobs(_multirun_config([f"sweep.jobs={listed}"])) is None
