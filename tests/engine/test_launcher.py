"""The vectorised launcher composes one job per set of jobs that differ only in seed and the
activation's parameter, and derives the others: they must equal what Hydra composes."""

import copy
from pathlib import Path

import pytest
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import OmegaConf, open_dict

from roundlab.run import config
from roundlab.sweep.jobs import derive, job_configs
from roundlab.sweep.jobs import member_values as _member_values
from roundlab.sweep.member_job import without_hydra
from roundlab.sweep.schedule import training_configs

BASE = ["dataset=count", "approach=rounding", "activation=sigmoid_round", "trainer.epochs=3"]


def _composed(overrides):
    return config.compose(overrides, return_hydra_config=True)


def _parsed(overrides):
    return OverridesParser.create().parse_overrides(overrides)


@pytest.mark.parametrize(
    "member",
    [
        ["activation.steepness=20", "seed=3", "trainer.learning_rate=0.001"],
        ["seed=7", "trainer.learning_rate=0.003", "activation.steepness=1.5"],
        ["trainer.learning_rate=0.01", "seed=2", "activation.steepness=5"],
    ],
)
def test_a_derived_job_config_equals_the_one_hydra_composes(member):
    first = [*BASE, "activation.steepness=5", "seed=0", "trainer.learning_rate=0.001"]
    other = [*BASE, *member]
    parsed = _parsed(other)
    signature, values = _member_values(parsed)
    assert signature == _member_values(_parsed(first))[0]
    derived = derive(_composed(first), parsed, values)
    expected = _composed(other)
    assert OmegaConf.to_container(derived) == OmegaConf.to_container(expected)


def test_jobs_that_differ_elsewhere_have_different_signatures():
    a = _member_values(_parsed([*BASE, "seed=0"]))[0]
    b = _member_values(_parsed([*BASE, "seed=0", "trainer.batch_size=16"]))[0]
    c = _member_values(_parsed([*BASE, "seed=0", "activation.steepness=2"]))[0]
    assert len({a, b, c}) == 3


def test_a_parameter_the_activation_does_not_have_is_left_to_hydra():
    composed = _composed([*BASE, "seed=0"])
    parsed = _parsed([*BASE, "seed=1", "+activation.width=0.5"])
    signature, values = _member_values(parsed)
    assert "activation.width" not in values  # an addition, not a plain change
    assert derive(composed, _parsed(["activation.width=0.5"]), {"activation.width": 0.5}) is None


def test_the_launcher_refuses_max_members_below_one_before_any_job():
    from hydra_plugins.roundlab_vectorized_launcher.vectorized_launcher import VectorizedLauncher

    with pytest.raises(
        ValueError, match="max_members must be an integer >= 1. Received: max_members=0"
    ):
        VectorizedLauncher(max_members=0)


class _CountingLoader:
    def __init__(self):
        self.composed = []

    def load_sweep_config(self, master_config, sweep_overrides):
        self.composed.append(sweep_overrides)


@pytest.mark.parametrize("launcher_composes_first, composed", [(True, 0), (False, 2)])
def test_the_sweeper_composes_a_batch_only_when_the_launcher_will_not(
    launcher_composes_first, composed
):
    from hydra.types import HydraContext

    from hydra_plugins.roundlab_vectorized_launcher.sweeper import RoundlabSweeper

    sweeper = RoundlabSweeper(max_batch_size=None)
    loader = _CountingLoader()
    sweeper.hydra_context = HydraContext(config_loader=loader, callbacks=None)
    sweeper.config = OmegaConf.create({})
    sweeper.launcher = type("L", (), {"composes_every_job_first": launcher_composes_first})()
    sweeper.validate_batch_is_legal([["seed=0"], ["seed=1"]])
    assert len(loader.composed) == composed


def test_the_vectorized_launcher_says_it_composes_every_job_before_training():
    from hydra_plugins.roundlab_vectorized_launcher.vectorized_launcher import VectorizedLauncher

    assert VectorizedLauncher.composes_every_job_first is True
    assert config.compose([], return_hydra_config=True).hydra.sweeper._target_.endswith(
        "RoundlabSweeper"
    )


class _Loader:
    def load_sweep_config(self, master_config, sweep_overrides):
        return config.compose(list(sweep_overrides), return_hydra_config=True)


def _launched(tmp_path, *extra):
    from hydra.core.utils import JobReturn
    from hydra.types import HydraContext

    from roundlab.sweep import launcher as vectorized

    class Launcher:
        max_members = 32
        composed = {}
        config = config.compose([f"hydra.sweep.dir={tmp_path}", *extra], return_hydra_config=True)
        hydra_context = HydraContext(config_loader=_Loader(), callbacks=_NoCallbacks())

        @staticmethod
        def task_function(cfg):
            return 1.0

        def train_jobs(self, jobs, cfgs, groups, alone):
            return vectorized.in_process(self, jobs, cfgs, groups, alone)

    # dropout cannot be stacked: both jobs run the (stub) task alone, nothing trains
    jobs = [["approach=regression", "model.dropout=0.5", f"seed={s}", *extra] for s in (0, 1)]
    returns = vectorized.launch(Launcher(), jobs, 0)
    assert all(isinstance(r, JobReturn) and r.return_value == 1.0 for r in returns)
    return returns


class _NoCallbacks:
    def on_job_start(self, **kwargs):
        pass

    def on_job_end(self, **kwargs):
        pass


def test_a_queue_workers_returns_keep_no_configs_and_other_multiruns_keep_them(tmp_path):
    plain = _launched(tmp_path / "plain")
    assert all(
        r.cfg.seed == s and r.hydra_cfg is not None for r, s in zip(plain, (0, 1), strict=True)
    )
    worker = _launched(tmp_path / "worker", f"sweep.queue={tmp_path / 'queue'}")
    assert all(r.cfg is None and r.hydra_cfg is None for r in worker)
    assert [r.overrides[2] for r in worker] == ["seed=0", "seed=1"]


def test_a_multiruns_later_batches_derive_from_what_its_first_composed():
    """A queue worker's tasks come in batches; a family's later round (other rates) is derived
    from the config its first batch composed, and equals what Hydra composes for it."""
    from roundlab.sweep.jobs import job_configs

    calls = []

    def counted(overrides):
        calls.append(overrides)
        return _composed(overrides)

    kept = {}
    first = [
        [*BASE, "activation.steepness=5", f"seed={s}", "trainer.learning_rate=0.001"]
        for s in (0, 1)
    ]
    later = [
        [*BASE, "activation.steepness=5", f"seed={s}", "trainer.learning_rate=0.03"] for s in (0, 1)
    ]
    job_configs(counted, first, 0, kept)
    assert len(calls) == 1
    derived = job_configs(counted, later, 2, kept)
    assert len(calls) == 1  # nothing composed again
    for job, cfg, idx in zip(later, derived, (2, 3), strict=True):
        expected = _composed(job)
        with open_dict(expected):
            expected.hydra.job.id = expected.hydra.job.num = idx
        assert OmegaConf.to_container(cfg) == OmegaConf.to_container(expected)


def test_training_configs_resolve_each_job_as_under_hydras_own_set_config(tmp_path):
    # hydra interpolations in a job's own keys, results_dir from the sweep's Hydra config
    overrides = [
        [
            *BASE,
            "hydra.mode=MULTIRUN",
            f"hydra.sweep.dir={tmp_path / 'mr'}",
            f"seed={seed}",
            "tracking.experiment=job${hydra:job.num}-${hydra:runtime.choices.dataset}",
        ]
        for seed in (0, 1)
    ]
    jobs = job_configs(_composed, overrides)  # the second derived from the first
    instance = HydraConfig.instance()
    before = instance.cfg
    expected = []
    for job in copy.deepcopy(jobs):
        instance.set_config(job)
        expected.append(config.to_yaml(config.resolve(without_hydra(job))))
    instance.cfg = before

    resolved = training_configs(jobs)

    assert [config.to_yaml(cfg) for cfg in resolved] == expected
    assert [cfg.tracking.experiment for cfg in resolved] == ["job0-count", "job1-count"]
    assert {Path(cfg.results_dir) for cfg in resolved} == {tmp_path / "mr" / "results"}
    assert HydraConfig.instance().cfg is before  # as run_job leaves it
    assert all(OmegaConf.is_readonly(job.hydra) for job in jobs)  # as set_config leaves them
