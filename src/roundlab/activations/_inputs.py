"""Input conversion shared by the activations."""

from __future__ import annotations

import tensorflow as tf


def as_float_tensor(x: object) -> tf.Tensor:
    """``x`` as a tensor, which must be floating point (rounding an integer tensor is a mistake)."""
    x = tf.convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"x must be a floating-point tensor. Received: x.dtype={x.dtype.name}")
    return x
