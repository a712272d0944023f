"""ordinal: the labels as ranks ``0 < 1 < ... < K-1`` of the training range, K−1 binary tasks
"is y > k?", ``approach.method=corn`` (default) or ``coral``.

Labels are shifted by the lowest training label ``lo`` (``r = y - lo``, ``K = hi - lo + 1``);
like classification the head can only predict ``lo..hi``: a label outside the training range is
never predicted (by construction), and a validation label outside it is clipped to the nearest
rank for the loss only. At most ``approach.max_classes`` labels
(:mod:`roundlab.approaches.label_range`).

- CORAL (Cao, Mirjalili and Raschka 2020, "Rank consistent ordinal regression for neural
  networks", arXiv:1901.07884, eq. 1-4): one score ``g(x)`` with shared weights and K−1 biases
  ``b_k``; ``P(y > k) = σ(g(x) + b_k)``; loss ``Σ_k BCE(1{r > k}, P(y > k))`` per example, mean
  over the batch. Here ``g`` is the output unit (its own bias is redundant with the ``b_k``:
  only their sums matter) and the ``b_k`` live in :class:`OffsetLogits`, initialised at the
  logits of the training frequencies of ``r > k`` (non-increasing, so rank-consistent from the
  first step, and the network starts from the label distribution).
- CORN (Shi, Cao and Raschka 2023, "Deep neural networks for rank-consistent ordinal regression
  based on conditional probabilities", arXiv:2111.08851, sec. 3): K−1 logits ``f_k`` modelling
  ``P(r > k | r > k−1)``; task k is trained only on the examples with ``r > k−1`` (task 0 on
  all); ``P(r > k) = Π_{j<=k} σ(f_j)``. Loss per example: the sum of the binary cross-entropies
  of the tasks it takes part in, mean over the batch. The reference implementation
  (coral_pytorch ``corn_loss``) divides the batch's sum by the number of (example, task) pairs
  instead; the two differ by that count over the batch size, a per-batch factor on the step.
  A per-example loss keeps stacked members independent and lets padded examples be masked
  (roundlab.engine.stacked). Biases start at the logits of the training frequencies of
  ``r > k`` among ``r >= k``, clipped to [0.001, 0.999] (a gap in the labels gives 0 or 1).

Readout (both): ``lo + #{k : P(y > k) > 0.5}``, the papers' rule.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from keras import ops

from roundlab.approaches.head import Approach
from roundlab.approaches.label_range import check_label_range
from roundlab.approaches.layers import OffsetLogits
from roundlab.approaches.settings import Settings
from roundlab.errors import ConfigError

# Frequencies are clipped here before their logit: a label missing from the training range
# (say 0, 1 and 3 but no 2) makes a conditional frequency 0 or 1, whose logit is infinite.
_FREQUENCY_EPS = 1e-3


def build(settings: Settings, y_train: np.ndarray) -> Approach:
    """Refuses a label range wider than ``approach.max_classes`` and one of a single label."""
    check_label_range("ordinal", y_train, settings.max_classes)
    lo, hi = int(np.min(y_train)), int(np.max(y_train))
    if hi == lo:
        raise ConfigError(
            f"approach=ordinal needs at least two labels in the training split. "
            f"Received: training labels all {lo}"
        )
    ranks = np.asarray(y_train, dtype=np.int64) - lo
    k = hi - lo + 1
    if settings.method == "coral":
        approach = Approach("ordinal", 1, 0.0, coral_loss(lo, k), *readout(coral_probabilities, lo))
        approach.head = [OffsetLogits(_logit(greater_frequencies(ranks, k)), name="coral_offsets")]
        return approach
    bias = _logit(conditional_frequencies(ranks, k))
    return Approach("ordinal", k - 1, bias, corn_loss(lo, k), *readout(corn_probabilities, lo))


def greater_frequencies(ranks: np.ndarray, k: int) -> np.ndarray:
    """``[mean(r > j) for j in 0..k-2]``: the training frequencies CORAL's biases start at."""
    return np.array([np.mean(ranks > j) for j in range(k - 1)])


def conditional_frequencies(ranks: np.ndarray, k: int) -> np.ndarray:
    """``[mean(r > j | r >= j) for j in 0..k-2]``: where CORN's biases start."""
    return np.array([np.mean(ranks[ranks >= j] > j) for j in range(k - 1)])


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, _FREQUENCY_EPS, 1 - _FREQUENCY_EPS)
    return np.log(p / (1 - p))


def levels(y_true: Any, lo: int, k: int) -> Any:
    """``(B, k-1)`` float: ``1{r > j}`` of the shifted rank ``r = clip(y - lo, 0, k - 1)``."""
    ranks = ops.clip(ops.cast(ops.reshape(y_true, (-1,)), "int32") - lo, 0, k - 1)
    return ops.cast(ops.expand_dims(ranks, 1) > ops.arange(k - 1, dtype="int32"), "float32")


def _bce(targets: Any, logits: Any) -> Any:
    """Binary cross-entropy of logits, elementwise: softplus(l) − t·l (stable for any l)."""
    logits = ops.cast(logits, "float32")
    return ops.softplus(logits) - targets * logits


def coral_loss(lo: int, k: int) -> Any:
    """Per example: ``Σ_j BCE(1{r > j}, σ(logit_j))`` over all K−1 tasks."""

    def loss(y_true: Any, logits: Any) -> Any:
        return ops.sum(_bce(levels(y_true, lo, k), logits), axis=-1)

    return loss


def corn_loss(lo: int, k: int) -> Any:
    """Per example: the sum over the tasks j it takes part in (``r > j − 1``, i.e. ``r >= j``)
    of ``BCE(1{r > j}, σ(f_j))``."""

    def loss(y_true: Any, logits: Any) -> Any:
        above = levels(y_true, lo, k)
        # Task j trains on r >= j: task 0 on all, task j > 0 where r > j - 1.
        trained = ops.concatenate([ops.ones_like(above[:, :1]), above[:, :-1]], axis=1)
        return ops.sum(trained * _bce(above, logits), axis=-1)

    return loss


def coral_probabilities(logits: Any) -> Any:
    """``P(y > k) = σ(g + b_k)``."""
    return ops.sigmoid(ops.cast(logits, "float32"))


def corn_probabilities(logits: Any) -> Any:
    """``P(y > k) = Π_{j<=k} σ(f_j)``: non-increasing in k by construction."""
    return ops.cumprod(ops.sigmoid(ops.cast(logits, "float32")), axis=-1)


def readout(probabilities: Any, lo: int) -> tuple[Any, Any]:
    """``(decode_tf, decode)``: ``lo + #{k : P(y > k) > 0.5}``, in-graph and in numpy."""

    def decode_tf(logits: Any) -> Any:
        count = ops.sum(ops.cast(probabilities(logits) > 0.5, "float32"), axis=-1)
        return count + float(lo)

    def decode(logits: np.ndarray) -> np.ndarray:
        return np.asarray(decode_tf(logits)).astype(np.int64)

    return decode_tf, decode
