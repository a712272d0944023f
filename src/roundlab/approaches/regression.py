"""regression: one linear unit trained with ``trainer.loss`` (MSE or Huber), rounded at readout.

The answer "regress, then round afterwards" of the Q&A thread "What activation function should I
use to enforce rounding-like behaviour?".
"""

from __future__ import annotations

import numpy as np

from roundlab.approaches.head import Approach, huber, mse, scalar_head
from roundlab.approaches.settings import Settings


def build(settings: Settings, y_train: np.ndarray) -> Approach:
    loss = huber(settings.huber_delta) if settings.loss == "huber" else mse
    return scalar_head("regression", y_train, loss)
