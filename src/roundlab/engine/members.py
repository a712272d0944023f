"""What a group run takes per member and what it gives back per member."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roundlab.metrics import EPOCH_METRICS

# The per-epoch history keys, in the order Keras ``fit`` reports them for an approach's
# metrics (roundlab.approaches.Approach.metrics): training first, then validation.
TRAIN_KEYS = ("loss", *EPOCH_METRICS)
HISTORY_KEYS = TRAIN_KEYS + tuple(f"val_{key}" for key in TRAIN_KEYS)


@dataclass(frozen=True)
class Member:
    """One network of a group.

    ``seed``: a number >= 0; epoch e shuffles the training set with
    ``numpy.random.default_rng((seed, e)).permutation``. ``initial_weights``: in
    ``roundlab.engine.models.build_mlp(...).model.get_weights()`` order (kernel, bias per
    Dense layer).
    ``knob``: the output activation's parameter for this member (alpha, steepness, ...); None
    keeps the value the approach's activation was built with, and is the only value allowed
    when the activation has no parameter. ``learning_rate``: this member's optimizer step
    size; None keeps the group's.
    """

    seed: int
    initial_weights: list[np.ndarray]
    knob: float | None = None
    learning_rate: float | None = None


@dataclass
class MemberOutcome:
    """The result of one member.

    ``weights``: same order as ``initial_weights``; the best epoch's (restored) under early
    stopping, else the last epoch's (the last finite one for a failed member).
    ``history``: one value per epoch run under each of ``HISTORY_KEYS``, as Keras ``fit``.
    ``best_epoch``: 0-based epoch of the best monitored value (val_loss without early stopping).
    ``error``: why the member failed (its loss stopped being finite), else None.
    """

    weights: list[np.ndarray]
    history: dict[str, list[float]]
    best_epoch: int
    epochs_run: int
    error: str | None = None
