"""What training hands back, whichever engine ran it, and the failure it may raise."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


class TrainingFailed(Exception):
    """A run that cannot train (no gradient, NaN loss): recorded as FAILED with this reason."""


@dataclass
class Fitted:
    """A run's per-epoch history (Keras history keys), the best epoch of the monitored value
    (0-based; its weights are the ones kept when early stopping is on, the last epoch's
    otherwise) and how many epochs ran out of at most ``epochs`` (the cap:
    :func:`roundlab.engine.early_stopping.epoch_cap`)."""

    history: dict[str, list[float]]
    best_epoch: int
    epochs_run: int
    epochs: int

    @property
    def converged(self) -> bool:
        """False when the kept epoch is the cap's last: the monitored value was still
        improving when training ran out of epochs."""
        return self.best_epoch < self.epochs - 1


def nan_epoch(losses: Sequence[float]) -> int | None:
    """The first epoch whose loss is not finite, or None."""
    return next((i for i, v in enumerate(losses) if not math.isfinite(v)), None)


def nan_failure(epoch: int, learning_rate: float, loss: float | str = "NaN") -> str:
    """The reason recorded for a run whose loss stopped being finite (nan or inf)."""
    return (
        f"loss became {loss} at epoch {epoch} (trainer.learning_rate={learning_rate}); "
        f"training stopped"
    )
