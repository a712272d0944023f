"""The two controls every rounding surrogate is compared with: no rounding, and plain round."""

from __future__ import annotations

import tensorflow as tf

from roundlab.activations._ops import as_float_tensor


def identity(x: tf.Tensor) -> tf.Tensor:
    """No rounding: the regression baseline seen as an output activation.

    Forward: y = x. Gradient: 1 (autodiff). Parameter: none.
    """
    return tf.identity(as_float_tensor(x))


def hard_round(x: tf.Tensor) -> tf.Tensor:
    """Plain round, the negative control: it cannot be trained through.

    Forward: y = round(x), ties to even (0.5 -> 0, 1.5 -> 2, -0.5 -> -0), the package's one tie
    rule, shared by ``tf.round`` and ``np.round``.
    Gradient: none. TensorFlow registers Round as not differentiable, so ``tape.gradient``
    returns None (not zeros) and a Keras fit with it as the output fails: that failure is the
    result this control exists to show (the rounding Q&A's question).
    Parameter: none.
    """
    return tf.round(as_float_tensor(x))
