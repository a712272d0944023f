"""K-fold selection end to end: chosen by the size of the validation split, configured by
``trainer.selection`` and ``trainer.cv_folds``, blind to the test split in both engines."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from roundlab import approaches
from roundlab.data import Dataset
from roundlab.data.dataset import Split
from roundlab.engine import session
from roundlab.errors import ConfigError
from roundlab.run import job, validate
from roundlab.sweep import vectorized
from roundlab.train import train

SMALL = ["dataset.n_train=60", "dataset.n_val=40", "trainer.epochs=3"]


@pytest.mark.parametrize(
    ("override", "shown"),
    [
        ("trainer.selection=crossval", "trainer.selection='crossval'"),
        ("trainer.cv_folds=1", "trainer.cv_folds=1"),
    ],
)
def test_a_bad_selection_or_fold_count_fails_validation_naming_key_and_value(
    compose, override, shown
):
    with pytest.raises(ConfigError) as err:
        validate.validate(compose(override))
    message = str(err.value)
    assert shown in message and "\n" not in message


def test_a_run_with_fewer_than_200_val_rows_selects_by_kfold(compose):
    result = train(compose("approach=regression", "trainer.selection=auto", *SMALL))
    assert result.ok
    selection = result.engine["selection"]
    assert selection["method"] == "kfold" and selection["folds"] == 5
    assert selection["val_rows"] == 100  # the development rows: 60 train + 40 val
    assert len(selection["fold_best_epochs"]) == 5
    expected = int(np.floor(np.mean(np.add(selection["fold_best_epochs"], 1)) + 0.5))
    assert selection["refit_epochs"] == expected == result.epochs_run
    assert len(result.history["loss"]) == expected and "val_loss" not in result.history


def test_a_run_with_200_val_rows_selects_on_its_holdout(compose):
    cfg = compose("approach=regression", "trainer.selection=auto", "dataset.n_val=200")
    result = train(cfg)
    assert result.engine["selection"] == {"method": "holdout", "val_rows": 200}
    assert "val_loss" in result.history


def _dataset(poisoned: bool) -> Dataset:
    """110 development rows (a learnable count), and a test split whose labels and features
    are wildly off when ``poisoned``."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(150, 4)).astype(np.float32)
    y = np.clip(np.round(4 + 1.5 * x[:, 0] - x[:, 1]), 0, 8).astype(np.int64)
    x_test, y_test = x[110:], y[110:]
    if poisoned:
        x_test, y_test = x_test * 50, y_test + 40
    splits = {
        "train": Split(x[:80], y[:80]),
        "val": Split(x[80:110], y[80:110]),
        "test": Split(x_test, y_test),
    }
    return Dataset("toy", {}, splits)


def _single(cfg, dataset: Dataset):
    session.start(0, True, False)
    result = SimpleNamespace()
    approach = approaches.build(cfg, dataset.train.y)
    job.fit(cfg.model, cfg.trainer, dataset, approach, False, result)
    return result


def _stacked(cfgs, dataset: Dataset, monkeypatch):
    monkeypatch.setattr(vectorized, "load", lambda *args: dataset)
    group = vectorized.train_group(cfgs)
    return [vectorized.record_member(group, i, None) for i in range(len(cfgs))]


def test_test_rows_never_reach_fold_training_or_the_refit_epochs(compose, monkeypatch):
    overrides = ["approach=rounding", "activation=soft_round", "trainer.selection=kfold"]
    cfgs = [job.resolve(compose(*overrides, f"seed={s}", "trainer.epochs=12")) for s in (0, 1)]
    clean, poisoned = _dataset(False), _dataset(True)
    runs = {
        "single": (_single(cfgs[0], clean), _single(cfgs[0], poisoned)),
        "stacked": tuple(_stacked(cfgs, d, monkeypatch)[1] for d in (clean, poisoned)),
    }
    for engine, (a, b) in runs.items():
        assert a.engine["selection"]["method"] == "kfold", engine
        assert a.engine["selection"]["val_rows"] == 110, engine
        assert a.engine["selection"] == b.engine["selection"], engine
        assert a.metrics["val"] == b.metrics["val"] and a.baseline["val"] == b.baseline["val"]
        assert a.history == b.history, engine
        # the poison is there: the same refit scores far worse on the poisoned test rows
        assert b.metrics["test"]["mae"] > a.metrics["test"]["mae"] + 10, engine


@pytest.mark.parametrize(
    ("name", "approach"),
    [("glm_poisson", {}), ("ordered_logit", {}), ("lightgbm", {"method": "regression"})],
)
def test_a_reference_under_kfold_fits_the_development_rows_and_never_the_test_rows(name, approach):
    from roundlab.engine import references
    from roundlab.results import RunResult

    runs = []
    for dataset in (_dataset(False), _dataset(True), _dataset(False)):
        result = RunResult("FINISHED", "toy", name, 0)
        runs.append(result)
        folds = None if len(runs) == 3 else 5
        fit = references.fitter(name, approach, 0, dataset.train.y)
        references.fit_and_evaluate(fit, True, dataset, result, cv_folds=folds)
    clean, poisoned, holdout = runs
    selection = dict(clean.engine["selection"])
    trees = {k: selection.pop(k) for k in ("fold_best_iterations", "refit_trees") if k in selection}
    assert selection == {
        "method": "kfold",
        "folds": 5,
        "stratified": False,  # labels 0 and 8 have fewer than 5 of the 110 rows
        "val_rows": 110,
    }
    if name == "lightgbm":  # refit at the folds' mean tree count, nothing held out
        best = trees["fold_best_iterations"]
        assert len(best) == 5 and trees["refit_trees"] == int(np.floor(np.mean(best) + 0.5))
        assert clean.engine["best_iteration"] == trees["refit_trees"]
    assert clean.engine == poisoned.engine  # same fitted parameters: test rows are not fitted
    assert clean.metrics["val"] == poisoned.metrics["val"]
    assert poisoned.metrics["test"]["mae"] > clean.metrics["test"]["mae"] + 10
    # train + val, not train alone: other parameters than the holdout fit's
    assert holdout.engine["selection"] == {"method": "holdout", "val_rows": 30}
    if name != "lightgbm":  # lightgbm records its settings, the same in both
        assert holdout.engine["params"] != clean.engine["params"]
    assert holdout.metrics["val"] != clean.metrics["val"]
