"""Early stopping as Keras does it, restoring the best epoch's weights, for every engine.

``trainer.early_stopping`` names a monitored history key (``val_loss``, ``val_exact_match``,
...), a ``patience`` in epochs and a ``min_delta``. An epoch improves when the monitored value
beats the best so far by more than ``min_delta`` (lower for losses and errors, higher for
exact_match and within_one); training stops once ``patience`` epochs in a row did not improve,
and the weights of the best epoch are restored (Keras ``EarlyStopping(restore_best_weights=
True)``, whose rule :func:`best_epoch` reproduces on a recorded history).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from roundlab.metrics import EPOCH_METRICS

# Metrics where larger is better; the others (loss, mae, rmse) are minimised.
MAXIMISED = ("exact_match", "within_one")
# What can be monitored: the validation loss and the per-epoch validation metrics.
MONITORS = ("val_loss", *(f"val_{m}" for m in EPOCH_METRICS))


@dataclass(frozen=True)
class EarlyStopping:
    monitor: str = "val_loss"
    patience: int = 10
    min_delta: float = 0.0

    @property
    def maximise(self) -> bool:
        return self.monitor.endswith(MAXIMISED)

    def improves(self, value: float, best: float | None) -> bool:
        if best is None:
            return True
        if self.maximise:
            return value - self.min_delta > best
        return value + self.min_delta < best

    def keras_callback(self):
        import keras

        return keras.callbacks.EarlyStopping(
            monitor=self.monitor,
            patience=self.patience,
            min_delta=self.min_delta,
            mode="max" if self.maximise else "min",
            restore_best_weights=True,
        )


def best_epoch(history: Sequence[float], rule: EarlyStopping) -> tuple[int, int]:
    """``(best epoch, epochs that ran)`` when ``rule`` watches the values ``history``: the
    epochs after the best one stop at ``patience`` without improvement."""
    best, best_at, wait = None, 0, 0
    for epoch, value in enumerate(history):
        if rule.improves(value, best):
            best, best_at, wait = value, epoch, 0
            continue
        wait += 1
        if wait >= rule.patience:
            return best_at, epoch + 1
    return best_at, len(history)
