"""ste_round: round forward, the identity's gradient backward (straight-through)."""

from __future__ import annotations

import tensorflow as tf

from roundlab.activations._ops import as_float_tensor


def ste_round(x: tf.Tensor) -> tf.Tensor:
    """Straight-through round (Bengio, Léonard and Courville 2013, "Estimating or Propagating
    Gradients Through Stochastic Neurons for Conditional Computation",
    https://arxiv.org/abs/1308.3432).

    Forward: y = round(x), ties to even (the package's tie rule, as ``tf.round``).
    Gradient: dy/dx := 1 (custom gradient). It is the exact gradient of E[round(x + u)] = x for
    dither u ~ U(-1/2, 1/2).
    Parameter: none.
    """
    # Passed positionally: tf.custom_gradient silently drops the custom gradient for
    # arguments given by keyword.
    return _ste_round(as_float_tensor(x))


@tf.custom_gradient
def _ste_round(x: tf.Tensor):
    return tf.round(x), lambda upstream: upstream
