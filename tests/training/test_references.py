"""The classical references: the Poisson GLM recovers generating weights (and numpy IRLS), its
result metrics are those of predictions computed by hand, the ordered logit predicts the labels
its data imply, and a reference run writes an ordinary result file."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab import approaches, metrics
from roundlab.data.dataset import Dataset, Split
from roundlab.engine import evaluation, references
from roundlab.results import RunResult

BETA = np.array([0.5, 0.8, -0.4])  # constant, then one weight per feature


def poisson_data(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    return x, rng.poisson(np.exp(BETA[0] + x @ BETA[1:])).astype(np.int64)


def numpy_irls(x: np.ndarray, y: np.ndarray, steps: int = 50) -> np.ndarray:
    """Newton's method on the Poisson log-likelihood with a log link (= IRLS)."""
    design = np.column_stack([np.ones(len(x)), x])
    beta = np.zeros(design.shape[1])
    for _ in range(steps):
        rate = np.exp(design @ beta)
        beta += np.linalg.solve(design.T @ (design * rate[:, None]), design.T @ (y - rate))
    return beta


def test_every_reference_in_the_catalogue_has_a_fit():
    assert set(references.FITS) == {"glm_poisson", "ordered_logit"}
    assert set(approaches.references()) == {*references.FITS, "lightgbm"}


def test_poisson_glm_recovers_the_generating_weights_and_matches_numpy_irls():
    x, y = poisson_data(4000, 0)
    fit = references.glm_poisson(x, y)
    assert fit.converged
    np.testing.assert_allclose(fit.params, BETA, atol=0.05)
    np.testing.assert_allclose(fit.params, numpy_irls(x, y), rtol=1e-6, atol=1e-8)


def test_poisson_glm_metrics_are_those_of_its_rounded_rate_computed_by_hand():
    x, y = poisson_data(600, 1)
    splits = {
        "train": Split(x[:400].astype(np.float32), y[:400]),
        "val": Split(x[400:500].astype(np.float32), y[400:500]),
        "test": Split(x[500:].astype(np.float32), y[500:]),
    }
    dataset = Dataset("synthetic_poisson", {}, splits)
    result = RunResult(
        status="FINISHED", dataset="synthetic_poisson", approach="glm_poisson", seed=0
    )
    fit = references.fitter("glm_poisson", {"name": "glm_poisson"}, 0, y[:400])
    references.fit_and_evaluate(fit, True, dataset, result)
    xs = evaluation.standardized_features(dataset, True)
    beta = numpy_irls(xs["train"].astype(np.float64), y[:400])
    for split in ("val", "test"):
        rate = np.exp(beta[0] + xs[split].astype(np.float64) @ beta[1:])
        by_hand = metrics.integer_metrics(splits[split].y, np.floor(rate + 0.5).astype(np.int64))
        mode = metrics.integer_metrics(splits[split].y, np.floor(rate).astype(np.int64))
        for name, value in by_hand.items():
            assert result.metrics[split][name] == pytest.approx(value)
        assert result.metrics[split]["mode_mae"] == pytest.approx(mode["mae"])
        assert result.baseline[split] == metrics.baseline_metrics(y[:400], splits[split].y)
    assert result.engine["name"] == "statsmodels" and result.converged


def test_ordered_logit_predicts_the_labels_its_data_imply():
    # y counts the thresholds -1 and 1 that 2x + logistic noise exceeds, on labels 3, 4, 5.
    rng = np.random.default_rng(2)
    x = rng.uniform(-3, 3, size=(1500, 1))
    score = 2 * x[:, 0] + rng.logistic(size=1500)
    y = 3 + (score > -1).astype(np.int64) + (score > 1).astype(np.int64)
    fit = references.ordered_logit(x, y)
    assert fit.converged
    probe = np.array([[-2.5], [0.0], [2.5]])
    np.testing.assert_array_equal(fit.predict(probe)[""], [3, 4, 5])
    # The slope and thresholds are those of the generating model, within sampling error.
    slope, threshold, log_gap = fit.params
    assert slope == pytest.approx(2.0, abs=0.25)
    assert threshold == pytest.approx(-1.0, abs=0.25)
    assert threshold + np.exp(log_gap) == pytest.approx(1.0, abs=0.25)


def test_a_reference_run_writes_an_ordinary_result_file(compose):
    from roundlab import results
    from roundlab.train import train

    cfg = compose("approach=ordered_logit", "tracking.enabled=false")
    result = train(cfg)
    assert result.ok, result.error
    written = results.read(result.key.result_path(cfg.results_dir))
    assert written.approach == "ordered_logit" and written.engine["name"] == "statsmodels"
    assert written.history == {} and set(written.metrics) == {"val", "test", "extrapolate"}
    # Like classification it never predicts beyond the training labels: 0 exact on extrapolate.
    assert written.metrics["extrapolate"]["exact_match"] == 0.0


def test_a_reference_never_joins_a_stacked_group(compose):
    from roundlab.sweep import grouping

    assert "statsmodels" in grouping.why_not_stackable(compose("approach=glm_poisson"))
