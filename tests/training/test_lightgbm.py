"""The LightGBM reference: deterministic fits, each method's readout equal to LightGBM's own
prediction, early stopping on the val rows alone, the label rules, and a run that writes an
ordinary result file."""

from __future__ import annotations

import lightgbm
import numpy as np
import pytest

from roundlab import results
from roundlab.data.dataset import Dataset, Split
from roundlab.engine import gbdt, references
from roundlab.errors import ConfigError
from roundlab.results import RunResult

from .processes import run

FAST = gbdt.Params(max_trees=300, early_stopping_rounds=20)


def counts(n: int, seed: int, shift: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Poisson counts of rate exp(0.4 + 0.6 x0 - 0.3 x1), plus ``shift``."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    y = rng.poisson(np.exp(0.4 + 0.6 * x[:, 0] - 0.3 * x[:, 1])) + shift
    return x, y.astype(np.int64)


def splits(seed: int = 0) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    x, y = counts(700, seed)
    return {
        "train": (x[:400], y[:400]),
        "val": (x[400:550], y[400:550]),
        "test": (x[550:], y[550:]),
    }


def fitted(method: str, params: gbdt.Params = FAST, seed: int = 0):
    s = splits(seed)
    return gbdt.fit(*s["train"], *s["val"], method, params)


@pytest.mark.parametrize("method", gbdt.METHODS)
def test_two_fits_give_identical_predictions_whatever_the_seed_and_threads(method):
    x_test = splits()["test"][0]
    first, best, _ = fitted(method)
    again, best_again, _ = fitted(method, FAST)
    other, best_other, _ = fitted(method, gbdt.Params(seed=7, num_threads=2, **_stopping()))
    assert best == best_again == best_other
    for readout, values in first(x_test).items():
        np.testing.assert_array_equal(values, again(x_test)[readout])
        np.testing.assert_array_equal(values, other(x_test)[readout])


def _stopping() -> dict[str, int]:
    return {"max_trees": FAST.max_trees, "early_stopping_rounds": FAST.early_stopping_rounds}


def lightgbm_own(method: str, best: int) -> lightgbm.Booster:
    """The same trees grown by LightGBM directly: ``best`` rounds, no early stopping."""
    x, y = splits()["train"]
    params = FAST.booster(method, len(y))
    target = y - y.min() if method == "multiclass" else y
    if method == "multiclass":
        params["num_class"] = int(y.max() - y.min() + 1)
    return lightgbm.train(params, lightgbm.Dataset(x, target.astype(float)), num_boost_round=best)


def test_each_readout_is_that_of_lightgbms_own_prediction():
    x_test, y_train = splits()["test"][0], splits()["train"][1]
    predict, best, converged = fitted("multiclass")
    probabilities = lightgbm_own("multiclass", best).predict(x_test)
    expected = np.argmax(probabilities, axis=1) + y_train.min()
    np.testing.assert_array_equal(predict(x_test)[""], expected)
    predict, best, _ = fitted("regression")
    value = lightgbm_own("regression", best).predict(x_test)
    np.testing.assert_array_equal(predict(x_test)[""], np.rint(value))  # half to even
    predict, best, _ = fitted("poisson")
    rate = lightgbm_own("poisson", best).predict(x_test)  # LightGBM's exp(log-rate)
    np.testing.assert_array_equal(predict(x_test)[""], np.floor(rate + 0.5))
    np.testing.assert_array_equal(predict(x_test)["mode"], np.floor(rate))
    # On these counts the rounded rate is closer to the labels than the constant median.
    y_test = splits()["test"][1]
    mae = np.mean(np.abs(predict(x_test)[""] - y_test))
    assert mae < np.mean(np.abs(np.median(y_train) - y_test)) - 0.1


@pytest.mark.parametrize("method", gbdt.METHODS)
def test_early_stopping_keeps_the_tree_count_with_the_lowest_val_loss(method):
    predict, best, converged = fitted(method)
    s = splits()
    grown = lightgbm_own(method, FAST.max_trees)
    x_val, y_val = s["val"]
    losses = []
    for k in range(1, FAST.max_trees + 1):
        raw = grown.predict(x_val, num_iteration=k, raw_score=True)
        if method == "multiclass":
            logp = raw - np.log(np.exp(raw).sum(axis=1, keepdims=True))
            ranks = np.clip(y_val - s["train"][1].min(), 0, raw.shape[1] - 1)
            losses.append(-np.mean(logp[np.arange(len(y_val)), ranks]))
        elif method == "regression":
            losses.append(np.mean((raw - y_val) ** 2))
        else:
            losses.append(np.mean(np.exp(raw) - y_val * raw))
    assert best == int(np.argmin(losses)) + 1
    # The loss did not fall for early_stopping_rounds trees after the best: stopped, converged.
    assert converged and best + FAST.early_stopping_rounds <= FAST.max_trees


@pytest.mark.parametrize("method", gbdt.METHODS)
def test_a_refit_without_val_rows_grows_the_chosen_tree_count(method):
    """What a k-fold selection does: choose the count on held-out rows, then refit on train."""
    s = splits()
    stopped, best, _ = fitted(method)
    refit, grown, converged = gbdt.fit(*s["train"], None, None, method, gbdt.Params(max_trees=best))
    assert (grown, converged) == (best, True)
    for readout, values in stopped(s["test"][0]).items():
        np.testing.assert_array_equal(refit(s["test"][0])[readout], values)


def test_a_fit_that_reaches_the_tree_cap_is_not_converged():
    _, best, converged = fitted("regression", gbdt.Params(max_trees=5, early_stopping_rounds=20))
    assert (best, converged) == (5, False)


def test_test_rows_never_change_the_fit():
    """Through the whole reference path: the test labels and features scrambled, the val scores
    and the best iteration stay; only the test scores move."""
    s = splits()

    def evaluate(test_x: np.ndarray, test_y: np.ndarray) -> RunResult:
        data = {**s, "test": (test_x, test_y)}
        dataset = Dataset(
            "counts", {}, {k: Split(x.astype(np.float32), y) for k, (x, y) in data.items()}
        )
        result = RunResult(status="FINISHED", dataset="counts", approach="lightgbm", seed=0)
        approach = {"method": "poisson", "max_trees": 300, "early_stopping_rounds": 20}
        fit = references.fitter("lightgbm", approach, 0, s["train"][1])
        references.fit_and_evaluate(fit, True, dataset, result)
        return result

    x_test, y_test = s["test"]
    rng = np.random.default_rng(5)
    plain = evaluate(x_test, y_test)
    scrambled = evaluate(rng.normal(size=x_test.shape) * 10, rng.permutation(y_test) + 3)
    assert plain.metrics["val"] == scrambled.metrics["val"]
    assert plain.engine == scrambled.engine and plain.engine["best_iteration"] > 1
    assert plain.metrics["test"] != scrambled.metrics["test"]
    assert plain.engine["name"] == "lightgbm" and "num_threads" not in plain.engine["params"]


def test_multiclass_never_predicts_outside_the_training_labels():
    x, y = counts(600, 3, shift=2)
    y_train = np.clip(y[:400], 2, 6)
    y_train[y_train == 4] = 5  # a label of the range absent from training keeps its class
    far = np.random.default_rng(1).normal(size=(500, 3)) * 8  # features far outside training
    predict, _, _ = gbdt.fit(x[:400], y_train, x[400:], y[400:] + 5, "multiclass", FAST)
    out = predict(np.vstack([far, x[400:]]))[""]
    assert out.min() >= 2 and out.max() <= 6
    assert set(np.unique(predict(x[:400])[""])) <= {2, 3, 5, 6}


def test_the_label_rules_refuse_what_a_method_cannot_fit():
    with pytest.raises(
        ConfigError,
        match=r"lightgbm approach.method=poisson needs non-negative count labels.*label=-1",
    ):
        gbdt.check_labels("poisson", np.array([2, -1, 0]), 1000)
    with pytest.raises(ConfigError, match=r"at least two distinct labels.*labels=\[3\]"):
        gbdt.check_labels("multiclass", np.array([3, 3]), 1000)
    with pytest.raises(ConfigError, match=r"span 0\.\.20 \(21 classes\)"):
        gbdt.check_labels("multiclass", np.array([0, 20]), 10)
    with pytest.raises(ConfigError, match="needs a positive count.*every training label=0"):
        gbdt.check_labels("poisson", np.zeros(5, dtype=np.int64), 1000)
    gbdt.check_labels("regression", np.array([-4, -4]), 1000)
    with pytest.raises(
        ConfigError, match=r"approach.num_leaves must be >= 2. Received: approach.num_leaves=1"
    ):
        gbdt.Params.of({"num_leaves": 1}, seed=0)


def test_negative_labels_stop_a_poisson_fit_before_anything_is_recorded(tmp_path, store):
    from roundlab.run import config
    from roundlab.train import train

    x, y = counts(150, 4, shift=-2)
    rows = "".join(f"{a:.4f},{b:.4f},{c:.4f},{v}\n" for (a, b, c), v in zip(x, y, strict=True))
    (tmp_path / "neg.csv").write_text("a,b,c,y\n" + rows)
    overrides = ["dataset=csv", f"dataset.path={tmp_path / 'neg.csv'}", "dataset.label=y"]
    cfg = config.compose(
        [
            *overrides,
            "approach=lightgbm",
            "approach.method=poisson",
            f"results_dir={tmp_path / 'r'}",
        ]
    )
    with pytest.raises(ConfigError, match="approach.method=poisson needs non-negative count"):
        train(cfg)
    assert not (tmp_path / "r").exists()


def test_a_lightgbm_run_writes_a_finished_ordinary_result(tmp_path):
    code, _, err, _ = run(
        tmp_path,
        [
            "approach=lightgbm",
            "approach.method=poisson",
            "dataset=count",
            "trainer.epochs=2",
            "tracking.enabled=false",
        ],
    )
    assert code == 0, err
    (path,) = (tmp_path / "results").rglob("seed=0.json")
    assert path.relative_to(tmp_path / "results").parts[:3] == ("count", "lightgbm", "poisson")
    result = results.read(path)
    assert result.status == "FINISHED" and result.converged and result.history == {}
    assert result.engine["name"] == "lightgbm" and 50 < result.engine["best_iteration"] < 2000
    assert set(result.metrics) == {"val", "test", "extrapolate"}
    # Boosted trees do not extrapolate: the leaves hold values of the training range.
    assert result.metrics["test"]["exact_match"] > 0.9
    assert result.metrics["extrapolate"]["exact_match"] < 0.1
    assert not list((tmp_path / "results").rglob("*.keras"))


def test_a_lightgbm_run_is_logged_to_mlflow_like_a_statsmodels_one(
    compose, store, tmp_path, capsys
):
    from roundlab import predict
    from roundlab.tracking import store as tracking_store
    from roundlab.train import train

    result = train(compose("approach=lightgbm", "approach.method=regression"))
    assert result.ok, result.error
    run = tracking_store.client(store).get_run(result.mlflow_run_id)
    assert run.data.tags["roundlab.engine"] == "lightgbm"
    assert run.data.tags["roundlab.best_iteration"] == str(result.engine["best_iteration"])
    assert run.data.params["approach.method"] == "regression"
    em = result.metrics["test"]["exact_match"]
    assert run.data.metrics["test/exact_match"] == pytest.approx(em)
    # No network to save or serve: predict answers in one line, as for glm_poisson.
    (tmp_path / "new.csv").write_text("x0\n0.5\n")
    path = result.key.result_path(result.config["results_dir"])
    assert predict.main([str(path), "--input", str(tmp_path / "new.csv")]) == 2
    err = capsys.readouterr().err
    assert "references save no network" in err and err.count("\n") == 1
    assert err.strip().endswith("Received: approach=lightgbm")


def test_leaves_shrink_with_a_small_training_split_and_threads_follow_the_job(monkeypatch):
    assert FAST.booster("poisson", 96)["min_data_in_leaf"] == 9
    assert FAST.booster("poisson", 1500)["min_data_in_leaf"] == 20
    assert FAST.booster("regression", 5)["min_data_in_leaf"] == 1
    monkeypatch.delenv("TF_NUM_INTRAOP_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert gbdt.job_threads() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert gbdt.job_threads() == 4
    monkeypatch.setenv("TF_NUM_INTRAOP_THREADS", "2")  # the sweep's share of the cores
    assert gbdt.Params.of({"method": "poisson"}, seed=3).num_threads == 2
