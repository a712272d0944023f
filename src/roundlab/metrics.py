"""Integer-prediction metrics, the constant baseline, and the one rounding rule they share.

Tie rule: a prediction exactly halfway between two integers rounds to the even one (2.5 -> 2,
3.5 -> 4), the rule of ``tf.round``, ``np.round`` and of roundlab.activations, so the readout
agrees with the forward pass of ste_round and comb_round. The in-graph per-epoch metrics
(roundlab.approaches) round the same way, so the last epoch's ``val_exact_match`` is the final
one.
"""

from __future__ import annotations

import numpy as np

# The metrics computed in-graph every epoch (Keras history keys, val_ prefixed on validation).
EPOCH_METRICS = ("exact_match", "mae", "within_one")


def round_half_even(x: np.ndarray) -> np.ndarray:
    """``np.rint`` as int64: the readout of the regression and rounding approaches."""
    return np.rint(np.asarray(x, dtype=np.float64)).astype(np.int64)


def integer_metrics(y_true: np.ndarray, y_pred: np.ndarray) -> dict[str, float]:
    """exact_match, mae, rmse, within_one of integer predictions against integer labels.

    exact_match: fraction with ``pred == y``; within_one: fraction with ``|pred - y| <= 1``;
    mae and rmse in label units.
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"labels and predictions must have the same shape. "
            f"Received: y_true.shape={y_true.shape}, y_pred.shape={y_pred.shape}"
        )
    err = (y_pred - y_true).astype(np.float64)
    return {
        "exact_match": float(np.mean(err == 0)),
        "mae": float(np.mean(np.abs(err))),
        "rmse": float(np.sqrt(np.mean(err**2))),
        "within_one": float(np.mean(np.abs(err) <= 1)),
    }


def baseline_constant(y_train: np.ndarray) -> int:
    """The training median (rounded half to even): the best constant for MAE, on the grid."""
    return int(round_half_even(np.median(y_train)))


def baseline_metrics(y_train: np.ndarray, y_true: np.ndarray) -> dict[str, float]:
    constant = baseline_constant(y_train)
    return integer_metrics(y_true, np.full_like(np.asarray(y_true, dtype=np.int64), constant))
