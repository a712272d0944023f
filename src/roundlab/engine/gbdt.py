"""Gradient-boosted trees (LightGBM), the reference practitioners use on tabular data.

:func:`fit` grows trees on the training rows and stops early on the validation rows alone: it
takes no other split, so the test and extrapolate rows cannot steer it. After each tree the
objective's own loss on val is computed (``multi_logloss``, ``l2`` or ``poisson``, as a
network's ``val_loss``); training ends once the last ``early_stopping_rounds`` trees did not
lower it, or at ``max_trees``, and the model predicts with the best iteration's trees
(``lightgbm.early_stopping``). ``converged``: the stop came from early stopping, not the cap.
A fit is deterministic (``deterministic=True, force_row_wise=True``, a fixed seed, no row or
feature subsampling): two fits, any thread count and any seed give the same trees, so one seed
is enough, as for the statsmodels references. The methods (``approach.method``):

- ``multiclass``: the labels as classes of the training range ``lo..hi`` (softmax over
  ``K = hi - lo + 1`` scores, as approach=classification), read out as ``argmax + lo``: never a
  label outside the training range. A val label outside it is clipped to the nearest class for
  the early-stopping loss only. At most ``approach.max_classes`` classes, two labels at least.
- ``regression``: L2 regression of the label, rounded half to even
  (:func:`roundlab.metrics.round_half_even`, the readout of approach=regression).
- ``poisson``: the Poisson log-likelihood of a log-rate ``ℓ``; read out as approach=poisson:
  ``floor(λ + 0.5)`` with the mode ``floor(λ)`` recorded too, ``ℓ`` clipped at
  :data:`roundlab.approaches.poisson.MAX_LOG_RATE`. Non-negative labels, not all zero.

``min_data_in_leaf`` is capped at a tenth of the training rows (at least 1): LightGBM's
default of 20 would let a 96-row training split grow trees of at most four leaves.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from roundlab import metrics
from roundlab.approaches import poisson
from roundlab.approaches.label_range import DEFAULT_MAX_CLASSES, check_label_range
from roundlab.errors import ConfigError

NAME = "lightgbm"
METHODS = ("multiclass", "regression", "poisson")
# The early-stopping loss of each method: the objective's own (LightGBM's metric names).
VAL_LOSS = {"multiclass": "multi_logloss", "regression": "l2", "poisson": "poisson"}

Predict = Callable[[np.ndarray], dict[str, np.ndarray]]  # features -> readout name -> integers


@dataclass(frozen=True)
class Params:
    """The settings of a fit (``conf/approach/lightgbm.yaml`` explains each). ``num_threads``
    (:func:`job_threads`) does not change the trees, so the result does not record it."""

    learning_rate: float = 0.05
    num_leaves: int = 31
    max_trees: int = 2000
    early_stopping_rounds: int = 50
    min_data_in_leaf: int = 20
    max_classes: int = DEFAULT_MAX_CLASSES
    seed: int = 0
    num_threads: int = 1

    @classmethod
    def of(cls, approach: Mapping[str, Any], seed: int) -> Params:
        """From the ``approach`` config group; a value out of its range is a ConfigError."""
        values = {k: approach[k] for k in cls.__dataclass_fields__ if k in approach}
        params = cls(**values, seed=int(seed), num_threads=job_threads())
        rules = (
            ("learning_rate", params.learning_rate > 0, "must be > 0"),
            ("num_leaves", params.num_leaves >= 2, "must be >= 2"),
            ("max_trees", params.max_trees >= 1, "must be >= 1"),
            ("early_stopping_rounds", params.early_stopping_rounds >= 1, "must be >= 1"),
            ("min_data_in_leaf", params.min_data_in_leaf >= 1, "must be >= 1"),
        )
        for key, holds, rule in rules:
            if not holds:
                value = getattr(params, key)
                raise ConfigError(f"approach.{key} {rule}. Received: approach.{key}={value!r}")
        return params

    def booster(self, method: str, n_train: int) -> dict[str, Any]:
        """LightGBM's parameters for ``method`` on ``n_train`` training rows."""
        return {
            "objective": method,
            "metric": VAL_LOSS[method],
            "learning_rate": self.learning_rate,
            "num_leaves": self.num_leaves,
            "min_data_in_leaf": min(self.min_data_in_leaf, max(1, n_train // 10)),
            "deterministic": True,
            "force_row_wise": True,
            "seed": self.seed,
            "num_threads": self.num_threads,
            "verbose": -1,
        }

    def recorded(self) -> dict[str, Any]:
        """What the result file keeps (the thread count changes nothing, so it is left out)."""
        return {k: v for k, v in asdict(self).items() if k != "num_threads"}


def job_threads() -> int:
    """The job's share of the cores: ``TF_NUM_INTRAOP_THREADS`` (what the sweep gives each of
    its parallel jobs, roundlab.sweep.runner), else ``OMP_NUM_THREADS``, else 1. Not every
    core by default: LightGBM's threads spin while they wait, and on this 2-core machine under
    load two threads made a 1,500-row fit 20 times slower than one (54 s against 2.5 s); a
    table of a few thousand rows gains nothing from more."""
    for variable in ("TF_NUM_INTRAOP_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(variable, "")
        if value.isdigit() and int(value) >= 1:
            return int(value)
    return 1


def check_labels(method: str, y_train: np.ndarray, max_classes: int) -> None:
    """Refuse training labels ``method`` cannot fit, with a :class:`ConfigError`: negative
    counts or only zeros for poisson, one label or a range wider than ``max_classes`` for
    multiclass."""
    if method not in METHODS:
        raise ConfigError(
            f"approach.method must be one of {METHODS}. Received: approach.method={method!r}"
        )
    name = f"{NAME} approach.method={method}"
    if method == "poisson":
        poisson.check_counts(name, y_train)
        if not np.any(np.asarray(y_train) > 0):  # LightGBM starts from the log of the mean
            raise ConfigError(
                f"approach={name} needs a positive count in the training split. "
                f"Received: every training label=0"
            )
    if method == "multiclass":
        labels = np.unique(np.asarray(y_train, dtype=np.int64))
        if len(labels) < 2:
            raise ConfigError(
                f"approach={name} needs at least two distinct labels in the training split. "
                f"Received: training labels={labels.tolist()}"
            )
        check_label_range(name, y_train, max_classes)


def fit(
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_val: np.ndarray | None,
    y_val: np.ndarray | None,
    method: str,
    params: Params,
) -> tuple[Predict, int, bool]:
    """``(predict, best_iteration, converged)`` of boosted trees grown on the training rows and
    stopped early on the val rows (see the module docstring). ``predict(x)`` maps ``""`` to the
    integer readout (and ``"mode"`` to the Poisson mode for method poisson). Without val rows
    (``x_val`` None: a refit on every training row once cross-validation chose the tree count)
    exactly ``params.max_trees`` trees are grown, and ``converged`` is True: the count was
    chosen on held-out rows, not run into."""
    # lightgbm is imported by this fit alone: a network's run never pays for it.
    import lightgbm

    check_labels(method, y_train, params.max_classes)
    y_train = np.asarray(y_train, dtype=np.int64)
    lo, hi = int(y_train.min()), int(y_train.max())
    booster_params = params.booster(method, len(y_train))
    if method == "multiclass":
        booster_params["num_class"] = hi - lo + 1
    shift = lo if method == "multiclass" else 0
    train_set = lightgbm.Dataset(np.asarray(x_train, np.float64), (y_train - shift).astype(float))
    if x_val is None or y_val is None:
        booster = lightgbm.train(booster_params, train_set, num_boost_round=params.max_trees)
        best, converged = params.max_trees, True
    else:
        val_target = np.asarray(y_val, dtype=np.int64) - shift
        if method == "multiclass":  # as classification's loss: the nearest class
            val_target = np.clip(val_target, 0, hi - lo)
        val_set = train_set.create_valid(np.asarray(x_val, np.float64), val_target.astype(float))
        losses: dict[str, Any] = {}
        booster = lightgbm.train(
            booster_params,
            train_set,
            num_boost_round=params.max_trees,
            valid_sets=[val_set],
            valid_names=["val"],
            callbacks=[
                lightgbm.early_stopping(params.early_stopping_rounds, verbose=False),
                lightgbm.record_evaluation(losses),
            ],
        )
        best = int(booster.best_iteration) or params.max_trees
        grown = len(losses["val"][VAL_LOSS[method]])
        converged = grown - best >= params.early_stopping_rounds

    def raw(x: np.ndarray) -> np.ndarray:
        return booster.predict(np.asarray(x, np.float64), num_iteration=best, raw_score=True)

    def predict(x: np.ndarray) -> dict[str, np.ndarray]:
        score = raw(x)
        if method == "multiclass":
            return {"": np.argmax(score, axis=1).astype(np.int64) + lo}
        if method == "regression":
            return {"": metrics.round_half_even(score)}
        rate = np.exp(np.minimum(score, poisson.MAX_LOG_RATE))
        return {"": poisson.rounded_mean(rate), "mode": poisson.poisson_mode(rate)}

    return predict, best, converged
