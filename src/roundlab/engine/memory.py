"""The memory estimate of networks trained together, and the refusal of a run that exceeds it.

The estimate of :func:`roundlab.engine.stacked.member_bytes` (float32 weights times 3 + s
copies: live, kept, gradient and s optimizer slots; one batch's activations; the validation
pass) times the members trained together must stay within ``trainer.max_memory_mb`` (4096 by
default). The refusal names the estimate and the largest layer, before any network is built.
"""

from __future__ import annotations

import math

import numpy as np

from roundlab.engine.stacked import member_bytes
from roundlab.engine.stacked_mlp import layer_shapes
from roundlab.errors import ConfigError

MB = 1024 * 1024
# State tensors per weight of each Keras optimizer (Adam and the unlisted ones: 2).
OPTIMIZER_SLOTS = {"sgd": 0, "rmsprop": 1, "adagrad": 1, "adadelta": 2, "adam": 2}


def memory_estimate_mb(
    n_features: int,
    hidden_sizes: list[int],
    units: int,
    optimizer: str,
    batch_size: int,
    n_val: int,
    members: int = 1,
) -> tuple[float, str, float]:
    """``(total, largest layer, its share)`` in MB: what ``members`` networks of this shape
    trained together hold (see the module docstring), the largest layer's name and its
    weights' copies."""
    slots = OPTIMIZER_SLOTS.get(str(optimizer).lower(), 2)
    per_member = member_bytes(
        n_features, hidden_sizes, units, batch_size, n_val, optimizer_slots=slots
    )
    kernels = layer_shapes(n_features, hidden_sizes, units)[::2]
    names = [f"hidden_{i}" for i in range(len(hidden_sizes))] + ["pre_activation"]
    sizes = [(fan_in + 1) * fan_out for fan_in, fan_out in kernels]
    largest = int(np.argmax(sizes))
    layer_mb = 4 * sizes[largest] * (3 + slots) * members / MB
    shape = f"{names[largest]} ({kernels[largest][0]} x {kernels[largest][1]})"
    return per_member * members / MB, shape, layer_mb


def check_memory(
    n_features: int,
    hidden_sizes: list[int],
    units: int,
    optimizer: str,
    batch_size: int,
    n_val: int,
    limit_mb: float,
    members: int = 1,
) -> None:
    """Refuse a run (or a group of ``members`` trained together) whose memory estimate exceeds
    ``limit_mb`` (``trainer.max_memory_mb``), with the estimate in the message."""
    total, layer, layer_mb = memory_estimate_mb(
        n_features, hidden_sizes, units, optimizer, batch_size, n_val, members
    )
    if total > limit_mb:
        group = f" for {members} members trained together" if members > 1 else ""
        raise ConfigError(
            f"a run's memory estimate must stay within trainer.max_memory_mb={limit_mb:g}; it "
            f"needs {_mb(total)}{group} (largest layer {layer}: {_mb(layer_mb)}, batch_size="
            f"{batch_size}). Shrink the model or batch, or raise trainer.max_memory_mb. "
            f"Received: estimate={total:.0f} MB"
        )


def _mb(value: float) -> str:
    return f"{value / 1024:.1f} GB" if value >= 1024 else f"{math.ceil(value)} MB"
