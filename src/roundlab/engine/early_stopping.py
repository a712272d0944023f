"""Early stopping with Keras' rule, for every engine: per member of a stacked group, and for a
single run (``keras_callback`` trains it, :func:`best_epoch` reads the same rule back from the
recorded history).

The rule of ``keras.callbacks.EarlyStopping(restore_best_weights=True)`` of the pinned Keras,
applied per member with numpy arrays over the members:

- epoch 0 always improves (Keras starts from ``best = None``);
- later, epoch e improves when ``value + min_delta < best`` (minimised) or
  ``value - min_delta > best`` (maximised); an improvement sets ``best``, the best epoch and
  ``wait = 0``;
- otherwise ``wait`` grows by one, and the member stops after epoch e when
  ``wait >= patience`` and ``e > 0``.

A member whose training loss is not finite fails at that epoch and stops as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import keras
import numpy as np

from roundlab.engine.members import HISTORY_KEYS

# Metrics where larger is better; the others (loss, mae, rmse) are minimised.
MAXIMISED = ("exact_match", "within_one")
# What can be monitored: the validation loss and the per-epoch validation metrics.
MONITORS = tuple(key for key in HISTORY_KEYS if key.startswith("val_"))


@dataclass(frozen=True)
class EarlyStopping:
    """Stop a member once ``monitor`` has not improved by more than ``min_delta`` for
    ``patience`` epochs, and give it back its best epoch's weights.

    ``monitor``: a validation history key (``val_loss``, ``val_exact_match``, ...).
    ``patience``: an integer >= 0. ``min_delta``: a number >= 0. ``mode``: ``min``, ``max``,
    or ``auto`` (max for exact_match and within_one, min for loss, mae and rmse).
    """

    monitor: str = "val_loss"
    patience: int = 10
    min_delta: float = 0.0
    mode: str = "auto"

    def __post_init__(self) -> None:
        if self.monitor not in MONITORS:
            raise ValueError(
                f"monitor must be one of {list(MONITORS)}. Received: monitor={self.monitor!r}"
            )
        if isinstance(self.patience, bool) or not isinstance(self.patience, int):
            raise ValueError(
                f"patience must be an integer >= 0. Received: patience={self.patience!r}"
            )
        if self.patience < 0:
            raise ValueError(
                f"patience must be an integer >= 0. Received: patience={self.patience}"
            )
        if not self.min_delta >= 0:
            raise ValueError(f"min_delta must be >= 0. Received: min_delta={self.min_delta}")
        if self.mode not in ("auto", "min", "max"):
            raise ValueError(f"mode must be auto, min or max. Received: mode={self.mode!r}")

    @property
    def maximise(self) -> bool:
        if self.mode != "auto":
            return self.mode == "max"
        return self.monitor.removeprefix("val_") in MAXIMISED

    def keras_callback(self):
        """The same rule as a Keras callback, restoring the best epoch's weights."""
        return keras.callbacks.EarlyStopping(
            monitor=self.monitor,
            patience=self.patience,
            min_delta=self.min_delta,
            mode="max" if self.maximise else "min",
            restore_best_weights=True,
        )


def epoch_cap(epochs: int, factor: int, rule: EarlyStopping | None) -> int:
    """How many epochs a run may train: ``epochs`` (the budget) times ``factor`` under early
    stopping, ``epochs`` without it.

    A run still improving when its budget ends has not converged, and a comparison with it says
    nothing about the approach. Under early stopping it keeps training, by the same rule, until
    the rule stops it or the cap is reached; runs the rule stops within the budget are
    unaffected, so this is the same as a budget of ``epochs * factor``. Without early stopping
    nothing would ever stop a run before the cap, so the budget is the cap.
    """
    if isinstance(factor, bool) or not isinstance(factor, int) or factor < 1:
        raise ValueError(
            f"max_epochs_factor must be an integer >= 1. Received: max_epochs_factor={factor!r}"
        )
    return epochs * factor if rule is not None else epochs


def best_epoch(history: dict[str, list[float]], rule: EarlyStopping | None) -> tuple[int, int]:
    """``(best epoch, epochs that ran)`` that ``rule`` gives on a recorded Keras history (with
    ``rule=None``: the epoch of the lowest val_loss, and every epoch)."""
    tracker = Tracker(1, rule)
    for epoch in range(len(history["loss"])):
        tracker.update(epoch, np.array([[history[key][epoch]] for key in HISTORY_KEYS]))
        if tracker.done:
            break
    return int(tracker.best_epoch[0]), int(tracker.epochs_run[0])


class Tracker:
    """Per-member bookkeeping between epochs: best value and epoch, wait, stopped or failed.

    With ``rule=None`` nobody stops early and the best epoch of val_loss is still tracked.
    """

    def __init__(self, members: int, rule: EarlyStopping | None):
        self.rule = rule
        monitor = rule.monitor if rule else "val_loss"
        self.index = HISTORY_KEYS.index(monitor)
        self.maximise = rule.maximise if rule else False
        self.best = np.full(members, np.nan)
        self.best_epoch = np.zeros(members, dtype=np.int64)
        self.wait = np.zeros(members, dtype=np.int64)
        self.epochs_run = np.zeros(members, dtype=np.int64)
        self.failed_at = np.full(members, -1, dtype=np.int64)
        self.running = np.ones(members, dtype=bool)

    def update(self, epoch: int, values: np.ndarray) -> np.ndarray:
        """Book epoch ``epoch`` (``values``: HISTORY_KEYS x members) and return which members'
        weights after this epoch are to be kept: the improved ones under early stopping, every
        member still training with a finite loss otherwise."""
        ran = self.running.copy()
        self.epochs_run[ran] = epoch + 1
        finite = np.isfinite(values[HISTORY_KEYS.index("loss")])
        self.failed_at[ran & ~finite] = epoch
        self.running &= finite
        improved = self.running & self._improves(epoch, values[self.index])
        self.best[improved] = values[self.index][improved]
        self.best_epoch[improved] = epoch
        self.wait[self.running] += 1
        self.wait[improved] = 0
        if self.rule is None:
            return self.running.copy()
        if epoch > 0:
            self.running &= improved | (self.wait < self.rule.patience)
        return improved

    @property
    def done(self) -> bool:
        return not self.running.any()

    def _improves(self, epoch: int, value: np.ndarray) -> np.ndarray:
        if epoch == 0:
            return np.ones_like(value, dtype=bool)
        delta = self.rule.min_delta if self.rule else 0.0
        # Keras shifts by min_delta in float64 and compares as float32 tensors: the same here,
        # so a step of exactly min_delta counts (or not) as it does in Keras.
        best = self.best.astype(np.float32)
        with np.errstate(invalid="ignore"):
            if self.maximise:
                return (value - delta).astype(np.float32) > best
            return (value + delta).astype(np.float32) < best
