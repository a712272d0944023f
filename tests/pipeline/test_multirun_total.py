"""The total a multirun's progress line counts down from is the number of jobs Hydra's basic
sweeper makes: the grid of an experiment config (``hydra.sweeper.params``) times the sweeps of
the command line, a key of both taking the command line's values."""

from __future__ import annotations

import pytest
import yaml
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import CompactHydraException
from hydra.types import RunMode

from hydra_plugins.roundlab_vectorized_launcher.sweeper import RoundlabSweeper
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


def _sweeper() -> RoundlabSweeper:
    """The sweeper as far as a job list needs it. Not constructed: Hydra's plugin discovery,
    run by the compositions above, loads its basic sweeper's module anew, and the constructor's
    ``super(BasicSweeper, self)`` then names another class than this one's base."""
    return RoundlabSweeper.__new__(RoundlabSweeper)


NOT_JOB_LISTS = {
    "missing": None,
    "cut short": "[unclosed",
    "a mapping": "a: mapping",
    "numbers": "- 1\n",
    "empty jobs": "- null\n",
    "overrides, not jobs": "- seed=0\n- seed=1\n",
    "a number among overrides": "- [seed=0, lr=0.01, approach=poisson, dataset=count, 5]\n",
}


@pytest.mark.parametrize("text", NOT_JOB_LISTS.values(), ids=NOT_JOB_LISTS.keys())
def test_a_jobs_file_that_is_not_a_list_of_jobs_is_refused_by_the_sweeper_alone(tmp_path, text):
    """The sweeper refuses it before any job runs with a message of one line naming the key,
    the file and the entry, which Hydra prints as a compact error (the message and its
    HYDRA_FULL_ERROR hint, no traceback), not overrides split into characters; the progress
    line counts nothing rather than a wrong total."""
    listed = tmp_path / "jobs.yaml"
    if text is not None:
        listed.write_text(text)
    assert planned_jobs(_multirun_config([f"sweep.jobs={listed}"])) is None
    overrides = OverridesParser.create().parse_overrides([f"sweep.jobs={listed}"])
    with pytest.raises(CompactHydraException) as refused:  # one line, no traceback
        _sweeper().split_arguments(overrides, None)
    message = str(refused.value)
    assert message.startswith("sweep.jobs must") and message.endswith(f"sweep.jobs={listed}")
    if text and text.startswith("- [seed=0"):
        assert "job 1 holds 5, not an override" in message
    assert "\n" not in message


def test_the_sweeper_runs_each_listed_job_with_the_command_lines_overrides(tmp_path):
    listed = tmp_path / "jobs.yaml"
    listed.write_text(yaml.safe_dump([["seed=0"], ["seed=1", "approach=poisson"]]))
    common = [f"sweep.jobs={listed}", "dataset=count"]
    overrides = OverridesParser.create().parse_overrides(common)
    batches = _sweeper().split_arguments(overrides, None)
    assert batches == [[["seed=0", *common], ["seed=1", "approach=poisson", *common]]]
