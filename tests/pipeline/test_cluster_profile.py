"""A profile that sends its stacked groups to SLURM: ``launcher: vectorized_submitit_slurm``
with ``launcher_options`` that become ``hydra.launcher`` overrides of every multirun."""

from pathlib import Path

import pytest

from roundlab.errors import ConfigError
from roundlab.run import config
from roundlab.sweep import plan as planning
from roundlab.sweep import profile as profiles
from roundlab.sweep.resamples import from_configs

OPTIONS = {
    "partition": "gpu",
    "gpus_per_node": 1,
    "timeout_min": 240,
    "array_parallelism": 16,
    "setup": ["module load cuda/12.4", "source .venv/bin/activate"],
}


def _profile(**raw):
    base = {"datasets": ["count"], "seeds": [0, 1], "approaches": ["regression"]}
    return profiles.parse_profile("p", {**base, **raw}, known_datasets=["count"])


def test_launcher_options_reach_the_slurm_launcher_config_of_every_multirun():
    profile = _profile(launcher="vectorized_submitit_slurm", launcher_options=OPTIONS)
    (m,) = planning.plan(profile, resamples_of=from_configs)
    cmd = planning.command(m, profile, Path("/r"), Path("/mr"))
    launcher = [a for a in cmd if a.startswith("hydra/launcher") or a.startswith("hydra.launch")]
    assert launcher[0] == "hydra/launcher=vectorized_submitit_slurm"
    cfg = config.compose(launcher, return_hydra_config=True)
    got = {k: cfg.hydra.launcher[k] for k in OPTIONS}
    assert got == OPTIONS
    assert cfg.hydra.launcher._target_.endswith("SlurmVectorizedLauncher")
    assert cfg.hydra.launcher.max_members == 256  # the SLURM config's default: a GPU per job


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"launcher": "vectorized", "launcher_options": {"partition": "gpu"}},
            "launcher_options goes with launcher",
        ),
        (
            {"launcher": "vectorized_submitit_slurm", "launcher_options": {"partition": "a'b"}},
            "launcher_options.partition must be a number, boolean, or string",
        ),
        (
            {"launcher": "vectorized_submitit_slurm", "launcher_options": ["partition=gpu"]},
            "launcher_options must map launcher keys to values",
        ),
    ],
)
def test_launcher_options_are_refused_where_they_would_be_ignored_or_misread(raw, message):
    with pytest.raises(ConfigError, match=message):
        _profile(**raw)


def test_max_members_goes_with_the_submitit_launchers_too():
    profile = _profile(launcher="vectorized_submitit_local", max_members=4)
    (m,) = planning.plan(profile, resamples_of=from_configs)
    assert "hydra.launcher.max_members=4" in planning.command(m, profile, Path("/r"), Path("/mr"))
