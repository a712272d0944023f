"""Classical references, not networks: statsmodels fits scored like any run.

The approaches of kind ``reference`` in the catalogue (roundlab.approaches) are fitted here on
the training split's features, standardised exactly as the networks see them
(:func:`roundlab.engine.evaluation.standardized_features`), and scored on the same val, test and
extrapolate splits with the same metrics, constant baseline and oracle; the result file is an
ordinary one (``engine.name == "statsmodels"``, no history), so the report and MLflow need no
special path. A fit is deterministic: the seed and the trainer settings (learning rate, epochs)
do not change it, so one seed is enough and the report never tunes a reference. Features that
are constant on the training split are left out (they are not identified).

- ``glm_poisson``: ``GLM(y, [1, x], family=Poisson())`` fitted by IRLS, the log-rate
  ``ℓ = β₀ + β·x``; read out as approach=poisson: ``floor(λ + 0.5)``, mode ``floor(λ)``, with
  ``ℓ`` clipped at :data:`roundlab.approaches.poisson.MAX_LOG_RATE`. Non-negative labels only.
- ``ordered_logit``: ``OrderedModel(y, x, distr="logit")`` (McCullagh 1980), ``P(y <= k) =
  σ(θ_k − β·x)`` over the labels seen in training, fitted by BFGS; read out as the most
  probable of those labels, so, like classification, it never predicts outside them. At least
  two distinct training labels (one label leaves no threshold to fit).

:func:`check_labels` refuses training labels a reference's family cannot fit with a
:class:`~roundlab.errors.ConfigError`, before anything is recorded, as the networks'
approaches do when they are built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from roundlab.approaches import poisson
from roundlab.data import Dataset
from roundlab.engine import evaluation, kfold
from roundlab.errors import ConfigError
from roundlab.results import RunResult

Predict = Callable[[np.ndarray], dict[str, np.ndarray]]  # features -> readout name -> integers


@dataclass
class Fit:
    """A fitted reference: its integer readouts (``""`` the main one), whether the optimiser
    converged, and the fitted parameters (for the record)."""

    predict: Predict
    converged: bool
    params: list[float]
    model: str


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
    name: str,
    standardize: bool,
    dataset: Dataset,
    result: RunResult,
    cv_folds: int | None = None,
) -> None:
    """Fit the reference ``name`` on features standardised when ``standardize`` (as the
    networks see them) and fill ``result`` as a trained run's is.

    ``cv_folds``: the run selects by k-fold (:mod:`roundlab.engine.kfold`), as the networks of
    the dataset do: the reference is fitted on every development row (train + val; it has no
    early stopping to hold rows out for), and its val metrics are the mean held-out metrics of
    one fit per fold on the same folds as the networks', so its val row is comparable to
    theirs. Its convergence is the full fit's."""
    x = evaluation.standardized_features(dataset, standardize)
    x_fit, y_fit = x["train"], dataset.train.y
    if cv_folds is not None:
        x_fit, y_fit = kfold.development(dataset, x)
    fit = FITS[name](x_fit, y_fit)
    result.engine = {"name": "statsmodels", "model": fit.model, "params": fit.params}
    result.converged = fit.converged
    result.metrics, result.baseline = evaluation.score_readouts(fit.predict, x, dataset)
    result.oracle = evaluation.oracle(dataset, result.metrics)
    if cv_folds is None:
        result.engine["selection"] = kfold.holdout_record(len(dataset.val))
        return
    folds = kfold.assign(y_fit, cv_folds)
    cv = kfold.CrossValidation(folds, [], [])
    for f in range(folds.k):
        rows = folds.training(f)
        scores, baseline = kfold.fold_scores(
            FITS[name](x_fit[rows], y_fit[rows]).predict, x_fit, y_fit, folds, f
        )
        cv.scores.append(scores)
        cv.baselines.append(baseline)
    cv.record(result, len(y_fit))


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


FITS: dict[str, Callable[[np.ndarray, np.ndarray], Fit]] = {
    "glm_poisson": glm_poisson,
    "ordered_logit": ordered_logit,
}

# Each reference's rule for its training labels, checked before a fit is recorded.
LABEL_CHECKS: dict[str, Callable[[str, np.ndarray], None]] = {
    "glm_poisson": poisson.check_counts,
    "ordered_logit": _two_labels,
}
