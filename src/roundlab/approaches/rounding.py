"""rounding: one linear unit followed by a rounding activation (``activation`` config group),
trained with MSE on the unscaled labels, rounded at readout."""

from __future__ import annotations

import numpy as np

from roundlab import activations
from roundlab.approaches.head import Approach, mse, scalar_head
from roundlab.approaches.settings import Settings
from roundlab.device import float32_policy


def build(settings: Settings, y_train: np.ndarray) -> Approach:
    act = activations.get(settings.activation, **settings.activation_params)
    # Built under a float32 policy: with mixed precision a float16 staircase would lose the
    # integer grid above 2048, and the loss must see float32.
    with float32_policy():
        layer = activations.RoundingActivation(act.name, **act.params)
    approach = scalar_head("rounding", y_train, mse)
    approach.head = [layer]
    approach.activation = act
    return approach
