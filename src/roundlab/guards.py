"""Checks that refuse, before anything is built, a run that would exhaust memory, and the warning
for data no approach can learn from.

- Label range: an approach that predicts only labels of the training range (classification, one
  softmax unit per integer ``lo..hi``; any ordinal head) needs ``hi - lo + 1`` output units. A
  range wider than ``approach.max_classes`` (default :data:`DEFAULT_MAX_CLASSES`) is refused:
  labels spanning 0..5,000,000 would build a 5,000,001-unit softmax (10.6 GB measured for 12
  rows). Such an approach's ``build`` calls :func:`check_label_range` first.
- Memory: the estimate of :func:`roundlab.engine.stacked.member_bytes` (float32 weights times
  3 + s copies: live, kept, gradient and s optimizer slots; one batch's activations; the
  validation pass) times the members trained together must stay within ``trainer.max_memory_mb``
  (default :data:`DEFAULT_MAX_MEMORY_MB`). The refusal names the estimate and the largest layer.
- Constant labels: a training split with one label value trains, but every approach then equals
  the constant baseline; a warning says so once per dataset and process.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

DEFAULT_MAX_CLASSES = 1000
DEFAULT_MAX_MEMORY_MB = 4096.0
MB = 1024 * 1024
# State tensors per weight of each Keras optimizer (Adam and the unlisted ones: 2).
OPTIMIZER_SLOTS = {"sgd": 0, "rmsprop": 1, "adagrad": 1, "adadelta": 2, "adam": 2}

_warned_constant: set[str] = set()


def check_label_range(approach: str, y_train: np.ndarray, max_classes: int) -> None:
    """Refuse a training label range wider than ``max_classes`` for ``approach`` (one output
    per label of the range). Raises :class:`roundlab.config.ConfigError`."""
    from roundlab.config import ConfigError

    lo, hi = int(np.min(y_train)), int(np.max(y_train))
    classes = hi - lo + 1
    if classes > max_classes:
        raise ConfigError(
            f"approach={approach} needs one output per label of the training range, at most "
            f"approach.max_classes={max_classes}; the training labels span {lo}..{hi} "
            f"({classes:,} classes). Use approach=regression or approach=rounding (they predict "
            f"any integer with one unit), or raise approach.max_classes. "
            f"Received: label range={lo}..{hi}"
        )


def memory_estimate_mb(
    n_features: int,
    hidden_sizes: list[int],
    units: int,
    trainer: Any,
    n_val: int,
    members: int = 1,
) -> tuple[float, str, float]:
    """``(total, largest layer, its share)`` in MB: what ``members`` networks of this shape
    trained together hold (see the module docstring), the largest layer's name and its
    weights' copies."""
    from roundlab.engine.stacked import member_bytes
    from roundlab.engine.stacked_mlp import layer_shapes

    slots = OPTIMIZER_SLOTS.get(str(trainer.optimizer).lower(), 2)
    per_member = member_bytes(
        n_features, hidden_sizes, units, trainer.batch_size, n_val, optimizer_slots=slots
    )
    kernels = layer_shapes(n_features, hidden_sizes, units)[::2]
    names = [f"hidden_{i}" for i in range(len(hidden_sizes))] + ["pre_activation"]
    sizes = [(fan_in + 1) * fan_out for fan_in, fan_out in kernels]
    largest = int(np.argmax(sizes))
    layer_mb = 4 * sizes[largest] * (3 + slots) * members / MB
    shape = f"{names[largest]} ({kernels[largest][0]} x {kernels[largest][1]})"
    return per_member * members / MB, shape, layer_mb


def check_memory(cfg: Any, n_features: int, units: int, n_val: int, members: int = 1) -> None:
    """Refuse a run (or a group of ``members`` trained together) whose memory estimate exceeds
    ``trainer.max_memory_mb``. Raises :class:`roundlab.config.ConfigError` with the estimate."""
    from roundlab.config import ConfigError

    limit = float(cfg.trainer.max_memory_mb)
    total, layer, layer_mb = memory_estimate_mb(
        n_features, list(cfg.model.hidden_sizes), units, cfg.trainer, n_val, members
    )
    if total > limit:
        group = f" for {members} members trained together" if members > 1 else ""
        raise ConfigError(
            f"a run's memory estimate must stay within trainer.max_memory_mb={limit:g}; it needs "
            f"{_mb(total)}{group} (largest layer {layer}: {_mb(layer_mb)}, batch_size="
            f"{cfg.trainer.batch_size}). Shrink the model or batch, or raise "
            f"trainer.max_memory_mb. Received: estimate={total:.0f} MB"
        )


def warn_if_constant(name: str, y_train: np.ndarray) -> None:
    """Warn once per dataset and process when every training label is the same value."""
    values = np.unique(y_train)
    if len(values) != 1 or name in _warned_constant:
        return
    _warned_constant.add(name)
    log.warning(
        "dataset %s: every training label is %s; every approach can only learn the constant "
        "and equals the baseline",
        name,
        values[0].item(),
    )


def _mb(value: float) -> str:
    return f"{value / 1024:.1f} GB" if value >= 1024 else f"{math.ceil(value)} MB"
