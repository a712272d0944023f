"""sigmoid_round: the second thread's ``approx_round``."""

from __future__ import annotations

import tensorflow as tf

from roundlab.activations._inputs import as_float_tensor
from roundlab.activations.parameters import STEEPNESS


def sigmoid_round(x: tf.Tensor, steepness: float = STEEPNESS.default) -> tf.Tensor:
    """A sigmoid step inside every unit interval: exactly the thread's ``approx_round``.

    Forward: y = floor(x) + s, s = sigmoid(k (frac(x) - 1/2)), frac(x) = x mod 1 in [0, 1);
    the same operations in the same order as the thread.
    Gradient: the true derivative dy/dx = k s (1 - s), from autodiff (floor contributes nothing).
    The thread's hand-written ``approx_round_grad`` returns s (1 - s): it lacks the factor k.
    Parameter: steepness k, a finite number > 0. For large k, y tends to round(x) away from the
    half-integers, where y = n + 1/2 for every k.
    Caveat: y is not continuous: at every integer floor(x) steps up by 1 while s falls from
    sigmoid(k/2) to sigmoid(-k/2), a jump of 2 sigmoid(-k/2) (0.15 at k = 5, 0.013 at k = 10).
    It is the soft_round family without soft_round's rescaling.
    Source: second thread ("what activation enforces rounding behaviour?"), answer defining
    approx_round.
    """
    steepness = STEEPNESS.validate(steepness)
    x = as_float_tensor(x)
    return tf.floor(x) + tf.sigmoid(steepness * (tf.math.floormod(x, 1.0) - 0.5))
