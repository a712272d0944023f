"""Classical references, not networks: statsmodels fits and boosted trees scored like any run.

The approaches of kind ``reference`` in the catalogue (roundlab.approaches) are fitted here on
the training split's features, standardised exactly as the networks see them
(:func:`roundlab.engine.evaluation.standardized_features`), and scored on the same val, test and
extrapolate splits with the same metrics, constant baseline and oracle; the result file is an
ordinary one (``engine.name`` ``"statsmodels"`` or ``"lightgbm"``, no history), so the report
and MLflow need no special path. A fit is deterministic: the seed and the trainer settings
(learning rate, epochs) do not change it, so one seed is enough and the report never tunes a
reference. Features that are constant on the training split are left out of the statsmodels
fits (they are not identified).

- ``glm_poisson``: ``GLM(y, [1, x], family=Poisson())`` fitted by IRLS, the log-rate
  ``ℓ = β₀ + β·x``; read out as approach=poisson: ``floor(λ + 0.5)``, mode ``floor(λ)``, with
  ``ℓ`` clipped at :data:`roundlab.approaches.poisson.MAX_LOG_RATE`. Non-negative labels only.
- ``ordered_logit``: ``OrderedModel(y, x, distr="logit")`` (McCullagh 1980), ``P(y <= k) =
  σ(θ_k − β·x)`` over the labels seen in training, fitted by BFGS; read out as the most
  probable of those labels, so, like classification, it never predicts outside them. At least
  two distinct training labels (one label leaves no threshold to fit).
- ``lightgbm``: gradient-boosted trees (:mod:`roundlab.engine.gbdt`), ``approach.method``
  multiclass, regression or poisson, stopped early on the val rows; the one reference that
  reads a split besides train. Its result records the best iteration.

:func:`fitter` checks a reference's settings and labels and returns its fit;
:func:`check_labels` refuses training labels a reference's family cannot fit with a
:class:`~roundlab.errors.ConfigError`, before anything is recorded, as the networks'
approaches do when they are built.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from roundlab.approaches import poisson
from roundlab.data import Dataset
from roundlab.engine import evaluation, gbdt, kfold
from roundlab.errors import ConfigError
from roundlab.results import RunResult

Predict = Callable[[np.ndarray], dict[str, np.ndarray]]  # features -> readout name -> integers


@dataclass
class Fit:
    """A fitted reference: its integer readouts (``""`` the main one), whether the optimiser
    converged (or early stopping fired), and what the result file records of it: the fitted
    parameters (statsmodels) or the settings (LightGBM), and ``details`` beyond them."""

    predict: Predict
    converged: bool
    params: list[float] | dict[str, Any]
    model: str
    engine: str = "statsmodels"
    details: dict[str, Any] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The result file's ``engine`` entry."""
        return {"name": self.engine, "model": self.model, "params": self.params, **self.details}


# Standardised features and labels per split (and a tree count to refit at, nothing held
# out: the k-fold refit; statsmodels fits ignore it) -> the fitted reference.
Fitter = Callable[..., Fit]


def fitter(name: str, approach: Mapping[str, Any], seed: int, y_train: np.ndarray) -> Fitter:
    """The fit of the reference ``name`` with the settings of its ``approach`` config group;
    its settings and training labels are checked now (:class:`ConfigError`), before anything
    is recorded."""
    if name == gbdt.NAME:
        params, method = gbdt.Params.of(approach, seed), str(approach["method"])
        gbdt.check_labels(method, y_train, params.max_classes)
        return lambda x, y, trees=None: boosted_trees(x, y, method, params, trees)
    check_labels(name, y_train)
    fit = FITS[name]
    return lambda x, y, trees=None: fit(x["train"], y["train"])


def boosted_trees(
    x: dict[str, np.ndarray],
    y: dict[str, np.ndarray],
    method: str,
    params: gbdt.Params,
    trees: int | None = None,
) -> Fit:
    """Boosted trees on the train rows, stopped early on the val rows; with ``trees``, exactly
    that many on the train rows and nothing held out (the k-fold refit)."""
    if trees is None:
        fitted = gbdt.fit(x["train"], y["train"], x["val"], y["val"], method, params)
    else:
        fitted = gbdt.fit(
            x["train"], y["train"], None, None, method, replace(params, max_trees=trees)
        )
    predict, best, converged = fitted
    model = f"lightgbm.Booster(objective={method})"
    return Fit(predict, converged, params.recorded(), model, gbdt.NAME, {"best_iteration": best})


def check_labels(name: str, y_train: np.ndarray) -> None:
    """Refuse training labels the reference ``name`` cannot fit (:data:`LABEL_CHECKS`)."""
    LABEL_CHECKS[name](name, y_train)


def _two_labels(name: str, y_train: np.ndarray) -> None:
    labels = np.unique(np.asarray(y_train, dtype=np.int64))
    if len(labels) < 2:
        raise ConfigError(
            f"approach={name} needs at least two distinct labels in the training split. "
            f"Received: training labels={labels.tolist()}"
        )


def fit_and_evaluate(
    fit: Fitter,
    standardize: bool,
    dataset: Dataset,
    result: RunResult,
    cv_folds: int | None = None,
) -> None:
    """Fit a reference (:func:`fitter`) on features standardised when ``standardize`` (as the
    networks see them) and fill ``result`` as a trained run's is.

    ``cv_folds``: the run selects by k-fold (:mod:`roundlab.engine.kfold`), as the networks of
    the dataset do, on the same folds: one fit per fold (LightGBM stopped early on its held-out
    fold), whose mean held-out metrics are the val metrics, so the reference's val row compares
    with the networks'; then the fit on every development row (train + val): the statsmodels
    fits as they are, LightGBM with ``round(mean)`` of the folds' best tree counts and nothing
    held out (the networks' refit rule; its convergence then is every fold's)."""
    x = evaluation.standardized_features(dataset, standardize)
    labels = {name: split.y for name, split in dataset.splits.items()}
    if cv_folds is None:
        fitted = fit(x, labels)
    else:
        x_dev, y_dev = kfold.development(dataset, x)
        cv, folds = _cross_validate(fit, x_dev, y_dev, cv_folds)
        best = [fold.details.get("best_iteration") for fold in folds]
        trees = None if None in best else kfold.mean_count(best)
        fitted = fit({"train": x_dev}, {"train": y_dev}, trees)
        if trees is not None:  # a count the folds chose: they say whether it converged
            fitted.converged = all(fold.converged for fold in folds)
    result.engine = fitted.record()
    result.converged = fitted.converged
    result.metrics, result.baseline = evaluation.score_readouts(fitted.predict, x, dataset)
    result.oracle = evaluation.oracle(dataset, result.metrics)
    if cv_folds is None:
        result.engine["selection"] = kfold.holdout_record(len(dataset.val))
        return
    cv.record(result, len(y_dev))
    if trees is not None:
        result.engine["selection"] |= {"fold_best_iterations": best, "refit_trees": trees}


def _cross_validate(
    fit: Fitter, x_dev: np.ndarray, y_dev: np.ndarray, k: int
) -> tuple[kfold.CrossValidation, list[Fit]]:
    """The folds' held-out scores, and their fits."""
    folds = kfold.assign(y_dev, k)
    cv = kfold.CrossValidation(folds, [], [])
    fits = []
    for f in range(k):
        tr, held = folds.training(f), folds.held_out(f)
        x = {"train": x_dev[tr], "val": x_dev[held]}
        fits.append(fit(x, {"train": y_dev[tr], "val": y_dev[held]}))
        scores, baseline = kfold.fold_scores(fits[-1].predict, x_dev, y_dev, folds, f)
        cv.scores.append(scores)
        cv.baselines.append(baseline)
    return cv, fits


def informative(x_train: np.ndarray) -> np.ndarray:
    """The columns that vary on the training split."""
    return np.flatnonzero(np.std(x_train, axis=0) > 0)


def glm_poisson(x_train: np.ndarray, y_train: np.ndarray) -> Fit:
    """Poisson GLM with a constant, by IRLS (statsmodels' default for GLM)."""
    # statsmodels is imported by the two fits alone: a network's run never pays for it.
    import statsmodels.api as sm

    check_labels("glm_poisson", y_train)
    keep = informative(x_train)

    def design(x: np.ndarray) -> np.ndarray:
        return sm.add_constant(np.asarray(x, dtype=np.float64)[:, keep], has_constant="add")

    model = sm.GLM(np.asarray(y_train, dtype=np.float64), design(x_train), sm.families.Poisson())
    fitted = model.fit()

    def predict(x: np.ndarray) -> dict[str, np.ndarray]:
        ell = np.minimum(fitted.predict(design(x), which="linear"), poisson.MAX_LOG_RATE)
        rate = np.exp(ell)
        return {"": poisson.rounded_mean(rate), "mode": poisson.poisson_mode(rate)}

    converged = bool(fitted.converged)
    return Fit(predict, converged, [float(v) for v in fitted.params], "GLM(family=Poisson())")


def ordered_logit(x_train: np.ndarray, y_train: np.ndarray) -> Fit:
    """Ordered logit over the labels seen in training (no constant: the thresholds hold it)."""
    from statsmodels.miscmodels.ordinal_model import OrderedModel

    check_labels("ordered_logit", y_train)
    keep = informative(x_train)
    labels = np.unique(np.asarray(y_train, dtype=np.int64))
    ranks = np.searchsorted(labels, np.asarray(y_train, dtype=np.int64))
    model = OrderedModel(ranks, np.asarray(x_train, dtype=np.float64)[:, keep], distr="logit")
    fitted = model.fit(method="bfgs", disp=False, maxiter=1000)

    def predict(x: np.ndarray) -> dict[str, np.ndarray]:
        probabilities = fitted.model.predict(fitted.params, np.asarray(x, np.float64)[:, keep])
        return {"": labels[np.argmax(probabilities, axis=1)]}

    converged = bool(fitted.mle_retvals.get("converged", False))
    params = [float(v) for v in fitted.params]
    return Fit(predict, converged, params, 'OrderedModel(distr="logit")')


# The statsmodels fits, from the training split alone.
FITS: dict[str, Callable[[np.ndarray, np.ndarray], Fit]] = {
    "glm_poisson": glm_poisson,
    "ordered_logit": ordered_logit,
}

# Each statsmodels fit's rule for its training labels, checked before a fit is recorded
# (LightGBM's depends on its method: roundlab.engine.gbdt.check_labels).
LABEL_CHECKS: dict[str, Callable[[str, np.ndarray], None]] = {
    "glm_poisson": poisson.check_counts,
    "ordered_logit": _two_labels,
}
