"""spiky: the custom-activation Q&A's worked example, built from TensorFlow ops."""

from __future__ import annotations

import tensorflow as tf

from roundlab.activations._ops import as_float_tensor, frac


def spiky(x: tf.Tensor) -> tf.Tensor:
    """A broken sawtooth: the custom-activation Q&A's example activation, in TensorFlow ops.

    Forward: r = x mod 1; y = r where r <= 1/2, else 0. Periodic (y(x + 1) = y(x)), not a
    rounding: it is there to compare the Q&A's numpy recipe (``spiky_np``) with the version
    built from TensorFlow ops that the Q&A also suggests, differentiated by autodiff.
    Gradient: 1 where r <= 1/2, else 0, from autodiff through tf.where and x - floor(x).
    Parameter: none.
    Check from the Q&A: x = [0.2, 0.7, 1.2, 1.7] gives y = [0.2, 0, 0.2, 0] and
    dy/dx = [1, 0, 1, 0].
    Source: the custom-activation Q&A (see :mod:`roundlab.activations.catalogue`).
    """
    x = as_float_tensor(x)
    r = frac(x)
    return tf.where(r <= 0.5, r, tf.zeros_like(r))
