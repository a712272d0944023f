"""A run started by hand shows its epochs: one log line each (sweeps keep their jobs quiet)."""

from __future__ import annotations

import logging
import time
from typing import Any

import keras

log = logging.getLogger(__name__)


class EpochLog(keras.callbacks.Callback):
    """One log line per epoch: ``epoch 3/50: loss 0.412, val_loss 0.520, val_exact_match
    0.810 (0.4s)``."""

    def __init__(self, epochs: int) -> None:
        super().__init__()
        self.epochs = epochs
        self.started = time.monotonic()

    def on_epoch_begin(self, epoch: int, logs: Any = None) -> None:
        self.started = time.monotonic()

    def on_epoch_end(self, epoch: int, logs: Any = None) -> None:
        shown = ", ".join(f"{k} {float(v):.4g}" for k, v in (logs or {}).items())
        seconds = time.monotonic() - self.started
        log.info("epoch %d/%d: %s (%.1fs)", epoch + 1, self.epochs, shown, seconds)
