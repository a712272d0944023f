"""A group trained through the vectorised path against the same jobs trained alone."""

import dataclasses

import keras
import numpy as np
import pytest

from roundlab import results
from roundlab.metrics import integer_metrics
from roundlab.report.stats import mean_ci
from roundlab.run.job import resolve as resolved
from roundlab.serving.saved_models import Predictor
from roundlab.sweep import networks, vectorized
from roundlab.tracking import writer
from roundlab.train import train

SEEDS = range(5)


def _grid(compose, *overrides):
    return [resolved(compose(*overrides, f"seed={s}")) for s in SEEDS]


@pytest.fixture
def soft_round_grid(compose):
    return {
        alpha: _grid(
            compose, "approach=rounding", "activation=soft_round", f"activation.alpha={alpha}"
        )
        for alpha in (1.0, 4.0)
    }


@pytest.fixture
def converging_grid(compose):
    """Enough data and epochs that seeds, not the budget, make the spread."""
    more = ["dataset.n_train=1200", "dataset.n_test=400", "trainer.epochs=30"]
    activation = ["approach=rounding", "activation=soft_round"]
    return [
        cfg
        for alpha in (1.0, 4.0)
        for cfg in _grid(compose, *activation, f"activation.alpha={alpha}", *more)
    ]


def test_group_agrees_with_the_single_path_within_intervals(converging_grid):
    cfgs = converging_grid
    trained = vectorized.train_group(cfgs)
    stacked = [vectorized.record_member(trained, i, None) for i in range(len(cfgs))]
    alone = [train(cfg) for cfg in cfgs]
    assert all(r.ok for r in stacked + alone)
    means = []
    for start in (0, len(SEEDS)):
        a = mean_ci([r.metrics["test"]["exact_match"] for r in stacked[start : start + len(SEEDS)]])
        b = mean_ci([r.metrics["test"]["exact_match"] for r in alone[start : start + len(SEEDS)]])
        # the two means differ by less than the two intervals' half-widths together
        assert abs(a.mean - b.mean) <= a.half_width + b.half_width, (a, b)
        means.append((a.mean, b.mean))
    overall = np.mean([m[0] for m in means]) - np.mean([m[1] for m in means])
    assert abs(overall) <= 0.02, means


def test_each_member_writes_the_result_file_a_job_alone_would(soft_round_grid, tmp_path):
    cfgs = soft_round_grid[4.0][:2]
    trained = vectorized.train_group(cfgs)
    for i, cfg in enumerate(cfgs):
        result = vectorized.record_member(trained, i, None)
        saved = results.read(result.key.result_path(cfg.results_dir))
        assert saved.ok and saved.activation_params == {"alpha": 4.0} and saved.seed == i
        assert saved.engine == {
            "name": "vectorized",
            "group": trained.group_id,
            "group_size": 2,
            "jit_compile": False,
            "selection": {"method": "holdout", "val_rows": 100},
        }
        assert set(saved.metrics) == {"val", "test", "extrapolate"}
        assert saved.epochs_run == len(saved.history["loss"]) and saved.best_epoch is not None
        # The restored best epoch reads out like the final evaluation, as in the single path.
        kept = saved.history["val_exact_match"][saved.best_epoch]
        assert kept == pytest.approx(saved.metrics["val"]["exact_match"])
        # Its own saved model, not the group's last member: it reproduces its test metrics.
        predictor = Predictor.load(result.key.result_path(cfg.results_dir))
        test = trained.dataset.test
        assert integer_metrics(test.y, predictor.predict(test.x)) == saved.metrics["test"]


def test_a_member_in_a_group_of_one_gives_what_it_gives_in_a_group(soft_round_grid):
    cfgs = soft_round_grid[1.0][:3]
    group = vectorized.train_group(cfgs)
    one = vectorized.train_group(cfgs[1:2])
    assert group.fits[1].history == one.fits[0].history
    for a, b in zip(group.weights[1], one.weights[0], strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_poisoned_member_fails_alone(soft_round_grid, monkeypatch):
    cfgs = soft_round_grid[1.0][:3]
    clean = vectorized.train_group(cfgs)
    member = vectorized._member

    def poisoned(cfg, dataset, approach):
        m = member(cfg, dataset, approach)
        if cfg.seed == 1:
            return dataclasses.replace(m, initial_weights=[w * 1e30 for w in m.initial_weights])
        return m

    monkeypatch.setattr(vectorized, "_member", poisoned)
    group = vectorized.train_group(cfgs)
    results_ = [vectorized.record_member(group, i, None) for i in range(3)]
    assert [r.status for r in results_] == ["FINISHED", "FAILED", "FINISHED"]
    assert "loss became" in results_[1].error
    for i in (0, 2):
        assert group.fits[i].history == clean.fits[i].history


def test_a_group_without_gradient_fails_as_a_whole(compose):
    cfgs = _grid(compose, "approach=rounding", "activation=hard_round")[:2]
    group = vectorized.train_group(cfgs)
    failed = [vectorized.record_member(group, i, None) for i in range(2)]
    assert all(r.status == results.FAILED and r.error.startswith("no gradient") for r in failed)


def _has_gpu() -> bool:
    import tensorflow as tf

    return bool(tf.config.list_physical_devices("GPU"))


@pytest.mark.skipif(_has_gpu(), reason="checks the CPU path")
def test_on_the_cpu_a_group_runs_without_xla_unless_asked(soft_round_grid, compose):
    assert vectorized.train_group(soft_round_grid[1.0][:2]).jit is False
    asked = _grid(
        compose, "approach=regression", "trainer.deterministic=false", "trainer.jit_compile=true"
    )
    group = vectorized.train_group(asked[:2])
    assert group.jit is True and all(f is not None for f in group.fits)


@pytest.mark.gpu
@pytest.mark.skipif(not _has_gpu(), reason="needs a GPU visible to TensorFlow")
def test_on_a_gpu_a_group_is_xla_compiled_and_recorded_there(soft_round_grid):
    group = vectorized.train_group(soft_round_grid[1.0][:2])
    assert group.jit is True and group.device.startswith("GPU")
    result = vectorized.record_member(group, 0, None)
    assert result.ok and result.engine["jit_compile"] is True and result.device.startswith("GPU")


@pytest.mark.parametrize(
    "overrides",
    [
        ["approach=rounding", "activation=soft_round", "activation.alpha=4"],
        ["approach=rounding", "activation=sine_round"],
        ["approach=rounding", "activation=hard_round"],
        ["approach=regression"],
        ["approach=classification"],
        ["approach=ordinal", "approach.method=coral"],
        ["approach=ordinal", "approach.method=corn"],
        ["approach=poisson"],
        ["approach=rounding", "activation=soft_round", "model.hidden_sizes=[5]"],
        ["approach=rounding", "activation=soft_round", "dataset=affine"],
    ],
)
def test_initial_weights_built_once_are_what_build_mlp_gives_whatever_was_built_before(
    compose, overrides
):
    """A worker reuses the network a seed built (roundlab.sweep.networks.initial_weights):
    after networks of every approach, activation and dataset have been built and kept, each
    member's initial weights are still those build_mlp gives under its own seed."""
    from roundlab import approaches
    from roundlab.engine import models
    from roundlab.run.job import load

    def weights(cfg):
        dataset = load(cfg.dataset, cfg.objective)
        approach = approaches.build(cfg, dataset.train.y)
        # a kept network's approach: its head layers hold a scored member's trained weights
        scored = models.build_mlp(dataset.n_features, cfg.model, approach).model
        scored.set_weights([w + 0.25 for w in scored.get_weights()])
        kept = networks.initial_weights(cfg, dataset, approach)
        keras.utils.set_random_seed(int(cfg.seed))
        fresh = approaches.build(cfg, dataset.train.y)
        alone = models.build_mlp(dataset.n_features, cfg.model, fresh).model.get_weights()
        return kept, alone

    others = [["approach=rounding", "activation=sigmoid_round"], ["approach=ordinal"]]
    for other in others:  # kept first, under the same seeds
        for seed in (0, 1):
            weights(compose(*other, f"seed={seed}"))
    for seed in (0, 1):
        kept, alone = weights(compose(*overrides, f"seed={seed}"))
        assert len(kept) == len(alone)
        for a, b in zip(kept, alone, strict=True):
            np.testing.assert_array_equal(a, b)


def test_a_worker_trains_a_familys_later_group_in_its_first_groups_network_and_program(
    compose, monkeypatch
):
    """A queue worker keeps a group key's network and traced program
    (roundlab.sweep.networks.keep_between_groups): the family's next group (other rates and
    seeds) is scored in the same network, trains in the same program, and its members come out
    as they do from a new network and program."""
    from roundlab.engine import stacked

    def group(rate, seeds):
        return [
            resolved(
                compose(
                    "approach=rounding",
                    "activation=soft_round",
                    f"activation.alpha={a}",
                    f"trainer.learning_rate={rate}",
                    f"seed={s}",
                )
            )
            for a in (1.0, 4.0)
            for s in seeds
        ]

    fresh = vectorized.train_group(group(0.03, (2, 3)))
    monkeypatch.setattr(networks, "_KEEPING", True)
    monkeypatch.setattr(networks, "_NETWORKS", type(networks._NETWORKS)())
    monkeypatch.setattr(stacked, "_PROGRAMS", type(stacked._PROGRAMS)())
    first = vectorized.train_group(group(0.01, (0, 1)))
    traces = [p._run.experimental_get_tracing_count() for p in stacked._PROGRAMS.values()]
    later = vectorized.train_group(group(0.03, (2, 3)))
    assert later.network is first.network and later.approach is first.approach
    assert [p._run.experimental_get_tracing_count() for p in stacked._PROGRAMS.values()] == traces
    assert later.errors == fresh.errors == [None] * 4
    for got, expected in zip(later.weights, fresh.weights, strict=True):
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)
    assert [f.history for f in later.fits] == [f.history for f in fresh.fits]
    scored = [vectorized.record_member(later, i, None).metrics for i in range(4)]
    assert scored == [vectorized.record_member(fresh, i, None).metrics for i in range(4)]
    writer.flush()  # the records' MLflow writes, while the process can still make threads
