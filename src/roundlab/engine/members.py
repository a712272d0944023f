"""What a group run takes per member and what it gives back per member."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from roundlab.engine.outcome import nan_failure
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


def outcomes(
    history: np.ndarray, tracker: Any, kept: list[list[np.ndarray]], rates: list[float]
) -> list[MemberOutcome]:
    """Each member's outcome from the epochs x HISTORY_KEYS x M history, the group's
    roundlab.engine.early_stopping.Tracker and each member's kept weights."""
    outcomes = []
    for m in range(history.shape[2]):
        run = int(tracker.epochs_run[m])
        failed = int(tracker.failed_at[m])
        error = None
        if failed >= 0:
            error = nan_failure(failed, rates[m], history[failed, 0, m])
        outcomes.append(
            MemberOutcome(
                weights=kept[m],
                history={key: history[:run, i, m].tolist() for i, key in enumerate(HISTORY_KEYS)},
                best_epoch=int(tracker.best_epoch[m]),
                epochs_run=run,
                error=error,
            )
        )
    return outcomes


def check_group(members: Sequence[Member], dropout: float, **counts: int) -> None:
    """ValueError unless there are members with seeds >= 0, no dropout and counts >= 1."""
    if not members:
        raise ValueError("members must hold at least one member. Received: members=[]")
    if dropout > 0:
        raise ValueError(
            f"dropout cannot be vectorised; run the job on its own. Received: dropout={dropout}"
        )
    for name, value in counts.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1. Received: {name}={value!r}")
    for i, member in enumerate(members):
        if member.seed < 0:
            raise ValueError(
                f"a member's seed must be >= 0. Received: members[{i}].seed={member.seed}"
            )
