"""Which jobs share a stacked program: only those that differ in seed and activation parameter."""

import pytest

from roundlab.run.job import resolve as resolved
from roundlab.sweep import grouping


@pytest.fixture
def cfg(compose):
    return lambda *overrides: resolved(compose(*overrides))


def test_seeds_and_parameter_values_share_one_group(cfg):
    jobs = [
        cfg(
            "approach=rounding",
            "activation=sigmoid_round",
            f"activation.steepness={k}",
            f"seed={s}",
        )
        for k in (1, 5, 20)
        for s in (0, 1)
    ]
    groups, alone = grouping.plan(jobs, max_members=32)
    assert groups == [[0, 1, 2, 3, 4, 5]] and alone == []


def test_learning_rates_share_one_group_and_the_plan_says_which(cfg):
    jobs = [cfg("approach=regression", f"trainer.learning_rate={lr}") for lr in (0.001, 0.01)]
    groups, alone = grouping.plan(jobs, max_members=32)
    assert groups == [[0, 1]] and alone == []
    (line,) = grouping.describe(jobs, groups, alone)
    assert "learning_rate=[0.001, 0.01]" in line


@pytest.mark.parametrize(
    "other",
    [
        "model.hidden_sizes=[8]",
        "dataset=affine",
        "dataset.n_train=200",
        "approach=regression",
        "activation=sine_round",
        "trainer.early_stopping.patience=3",
    ],
)
def test_jobs_that_differ_elsewhere_never_share_a_group(cfg, other):
    base = ["approach=rounding", "activation=sigmoid_round"]
    groups, _ = grouping.plan([cfg(*base), cfg(*base, other)], max_members=32)
    assert groups == [[0], [1]]


def test_the_activation_group_does_not_split_approaches_that_do_not_use_it(cfg):
    jobs = [cfg("approach=regression", "activation=soft_round"), cfg("approach=regression")]
    assert grouping.plan(jobs, max_members=32)[0] == [[0, 1]]


def test_groups_are_cut_into_chunks_of_max_members(cfg):
    jobs = [cfg("approach=regression", f"seed={s}") for s in range(5)]
    assert grouping.plan(jobs, max_members=2)[0] == [[0, 1], [2, 3], [4]]


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        (["activation=sigmoid_round_np"], "numpy-backed"),
        (["model.hidden_activation=spiky_np"], "numpy-backed"),
        (["model.dropout=0.2"], "dropout"),
        (["trainer.mixed_precision=true"], "float32"),
        (["trainer.optimizer=nadam"], "trainer.optimizer=nadam has no stacked step"),
    ],
)
def test_what_cannot_be_stacked_trains_alone_with_its_reason(cfg, overrides, reason):
    jobs = [cfg("approach=rounding", *overrides), None]
    groups, alone = grouping.plan(jobs, max_members=32)
    assert groups == [] and alone == [0, 1]
    assert reason in grouping.why_not_stackable(jobs[0])
    assert "does not validate" in grouping.why_not_stackable(None)


def test_skipped_jobs_join_no_group_and_do_not_count_towards_max_members(cfg):
    jobs = [cfg("approach=regression", f"seed={s}") for s in range(5)]
    jobs.append(cfg("approach=rounding", "activation=spiky_np"))
    groups, alone = grouping.plan(jobs, max_members=2, skip={0, 2, 5})
    assert groups == [[1, 3], [4]] and alone == []


def test_max_members_below_one_is_refused():
    with pytest.raises(
        ValueError, match="max_members must be an integer >= 1. Received: max_members=0"
    ):
        grouping.plan([], max_members=0)


def test_members_of_different_resamples_never_share_a_group(store):
    from roundlab.run import config

    csv = ["dataset=csv", "dataset.path=x.csv", "dataset.label=y", "dataset.resamples=3"]
    jobs = [
        resolved(
            config.compose([*csv, f"dataset.resample={r}", "approach=regression", f"seed={s}"])
        )
        for r in range(3)
        for s in range(2)
    ]
    groups, alone = grouping.plan(jobs, max_members=32)
    assert groups == [[0, 1], [2, 3], [4, 5]] and alone == []
