"""soft_round: Agustsson and Theis's smooth, monotone approximation of round."""

from __future__ import annotations

import tensorflow as tf

from roundlab.activations._ops import as_float_tensor, parameter_as
from roundlab.activations.parameters import ALPHA

# Below this alpha soft_round is the identity. The formula differs from x by at most
# alpha^2 / 62 there (< 2e-8, under float32 resolution), while its numerator and denominator
# both vanish, so evaluating it would only add rounding error (and 0/0 at alpha = 0).
IDENTITY_BELOW = 1e-3


def soft_round(x: tf.Tensor, alpha: float | tf.Tensor = ALPHA.default) -> tf.Tensor:
    """Soft round (Agustsson and Theis 2020, "Universally Quantized Neural Compression",
    https://arxiv.org/abs/2006.09952 sec. 4.1; ``soft_round`` in TensorFlow Compression).

    Forward: m = floor(x) + 1/2, y = m + tanh(alpha (x - m)) / (2 tanh(alpha / 2)).
    Continuous, monotone, y(x + 1) = y(x) + 1, y(n) = n at the integers and y = n + 1/2 at the
    half-integers.
    Gradient: autodiff, dy/dx = alpha (1 - tanh^2(alpha (x - m))) / (2 tanh(alpha / 2)): largest
    (about alpha / 2) at the half-integers, smallest at the integers.
    Parameter: alpha, a finite number >= 0. alpha -> 0 gives the identity (used exactly below
    1e-3), alpha -> infinity gives round. A tensor broadcastable against x without enlarging it
    is taken unchecked: a scalar tensor lets alpha be annealed during training as the paper
    does, shape (M, 1, 1) for x of shape (M, B, 1) gives each member its own alpha.
    """
    alpha = ALPHA.accept(alpha)
    x = as_float_tensor(x)
    alpha = parameter_as(alpha, x.dtype)
    # tf.where's gradient sends zeros into the branch it did not pick, and 0 * NaN = NaN: for
    # alpha -> 0 the formula branch is 0/0, so it is evaluated with alpha bounded away from 0.
    # Where alpha is below the bound that branch is discarded, so the bound changes no result.
    bounded = tf.maximum(alpha, IDENTITY_BELOW)
    m = tf.floor(x) + 0.5
    y = m + tf.tanh(bounded * (x - m)) / (2 * tf.tanh(bounded / 2))
    return tf.where(alpha < IDENTITY_BELOW, x, y)
