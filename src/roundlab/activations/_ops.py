"""Small tensor helpers shared by the activations."""

from __future__ import annotations

import tensorflow as tf


def as_float_tensor(x: object) -> tf.Tensor:
    """``x`` as a tensor, which must be floating point (rounding an integer tensor is a mistake)."""
    x = tf.convert_to_tensor(x)
    if not x.dtype.is_floating:
        raise ValueError(f"x must be a floating-point tensor. Received: x.dtype={x.dtype.name}")
    return x


def parameter_as(value: float | tf.Tensor, dtype: tf.DType) -> tf.Tensor:
    """An activation parameter (a checked Python number or a tensor) as a tensor of ``dtype``.

    A number goes straight to ``dtype``: ``tf.cast(0.1, tf.float64)`` would first make it a
    float32 tensor and return 0.10000000149011612.
    """
    return tf.cast(value, dtype) if tf.is_tensor(value) else tf.constant(value, dtype)


def frac(x: tf.Tensor) -> tf.Tensor:
    """x mod 1, in [0, 1], bit for bit what the Q&A code's ``tf.math.floormod(x, 1)`` returns.

    Both are one rounding of the same real number x - floor(x) (floormod computes fmod(x, 1),
    which is exact, and adds 1 for negative x), so the results are identical; as for
    floormod, a tiny negative x gives 1.0. Written as a subtraction because XLA recomputes it
    inside every fused loop that needs it, whereas floormod lowers to a remainder that XLA
    computes once and stores, adding a write and reads of a whole tensor to every step.
    """
    return x - tf.floor(x)
