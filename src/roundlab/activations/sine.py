"""sine_round: the rounding Q&A's ``approx_round_sin``, with a sine that XLA compiles fast."""

from __future__ import annotations

import math

import numpy as np
import tensorflow as tf

from roundlab.activations._ops import as_float_tensor, frac, parameter_as
from roundlab.activations.parameters import WIDTH


def sine_round(x: tf.Tensor, width: float | tf.Tensor = WIDTH.default) -> tf.Tensor:
    """A half sine wave across a window around every half-integer: the rounding Q&A's
    ``approx_round_sin``.

    Forward: y = floor(x) + clipped_sin(frac(x), w), frac(x) = x mod 1 in [0, 1), with
    theta = pi ((frac(x) - 1/2) / w) (the Q&A's operations, in its order) and
    clipped_sin = 0 for theta <= -pi/2, (1 + sin(theta)) / 2 inside, 1 for theta >= pi/2.
    Continuous; slope 0 outside the window |frac(x) - 1/2| < w/2, at most pi / (2 w) inside.
    Gradient: the clipped cosine, pi / (2 w) cos(theta) inside the window, 0 outside (custom
    gradient, as the Q&A's ``approx_round_grad_sin``, which is correct).
    Parameter: width w in (0, 1] (the Q&A raises ValueError outside it too). w = 1 is a
    sine across the whole unit interval; small w approaches round. A tensor broadcastable
    against x without enlarging it (shape (M, 1, 1) for x of shape (M, B, 1): one w per member)
    is taken unchecked, and each slice gives what the call with that slice's number gives.
    Source: the rounding Q&A (see :mod:`roundlab.activations.catalogue`), the answer defining
    approx_round_sin / clipped_sin.

    Two implementation notes, neither changing the function:
    - The sine comes from its Taylor polynomial, not tf.sin. The argument never leaves
      [-pi/2, pi/2] where it matters, so the polynomial needs no range reduction; tf.sin's
      general one made the XLA-compiled CPU version 6-8x slower than relu. The result stays
      within one float32 ulp of tf.sin.
    - The Q&A's strict comparisons leave one point per period out of both branches: at
      frac(x) = 1/2 + w/2 exactly it returns floor(x), not floor(x) + 1, though both one-sided
      limits are floor(x) + 1. Here that point gets the limit, which keeps y continuous
      (e.g. x = 0.75 with w = 0.5 gives 1; the Q&A's code gives 0).
    """
    width = WIDTH.accept(width)
    x = as_float_tensor(x)
    width = parameter_as(width, x.dtype)
    half_pi = tf.constant(math.pi / 2, x.dtype)

    @tf.custom_gradient
    def _sine_round(x: tf.Tensor):
        theta = math.pi * ((frac(x) - 0.5) / width)
        inside = tf.abs(theta) < half_pi
        # Clipped so the polynomial only sees its range; exactly -1 or 1 outside the window,
        # so that y is an exact integer there, as in the Q&A's code.
        clipped = tf.clip_by_value(theta, -half_pi, half_pi)
        sine = tf.where(inside, half_period_sin(clipped), tf.sign(theta))
        y = tf.floor(x) + (1 + sine) / 2

        def grad(upstream: tf.Tensor) -> tf.Tensor:
            # cos(theta) = sin(pi/2 - |theta|): accurate relative to its value near the window
            # edges, where cos(theta) -> 0 and a cosine polynomial would cancel.
            cosine = half_period_sin(half_pi - tf.abs(clipped))
            return upstream * tf.where(inside, (math.pi / (2 * width)) * cosine, 0)

        return y, grad

    return _sine_round(x)


def half_period_sin(theta: tf.Tensor) -> tf.Tensor:
    """sin(theta) for theta in [-pi/2, pi/2], from its Taylor polynomial.

    The polynomial runs up to the degree where the first omitted term, (pi/2)^(2n+1) / (2n+1)!,
    is below 1% of the dtype's epsilon: degree 13 for float32, 21 for float64. Evaluated as
    theta + theta s p(s), s = theta^2 (Horner in s), so the leading term is exact and only the
    small correction rounds. Outside [-pi/2, pi/2] it is not the sine.
    """
    eps = float(np.finfo(theta.dtype.as_numpy_dtype).eps)
    n = 1
    while (math.pi / 2) ** (2 * n + 1) / math.factorial(2 * n + 1) >= eps / 100:
        n += 1
    # coefficients of theta^3, theta^5, ..., theta^(2n-1): (-1)^k / (2k+1)!
    coefficients = [(-1) ** k / math.factorial(2 * k + 1) for k in range(1, n)]
    s = theta * theta
    p = tf.constant(coefficients[-1], theta.dtype)
    for c in reversed(coefficients[:-1]):
        p = p * s + c
    return theta + theta * (s * p)
