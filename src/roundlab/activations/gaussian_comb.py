"""comb_round: round forward, a comb of Gaussians at the half-integers backward."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import tensorflow as tf

from roundlab.activations._ops import as_float_tensor, frac
from roundlab.activations.parameters import SIGMA
from roundlab.activations.straight_through import ste_round


def comb_round(x: tf.Tensor, sigma: float | tf.Tensor = SIGMA.default) -> tf.Tensor:
    """Round forward, a smoothed Dirac comb backward (the rounding Q&A's last answer).

    Forward: y = round(x), ties to even (the package's tie rule, as ``tf.round``).
    Gradient: round's derivative is a Dirac comb at the half-integers; each spike becomes a
    Gaussian, dy/dx := sum_n N(x; n + 1/2, sigma^2) (custom gradient), summed over the nearest
    half-integers: those within J = max(1, ceil(sigma sqrt(2 ln(1/eps)))) of x, eps the dtype's
    machine epsilon, so that every omitted term is below eps times the peak (J = 1, the two
    nearest, for sigma <= 0.17 in float32). Once sigma is so large that the comb is flat, the
    sum is the constant 1 to within eps (Poisson summation: the sum is
    1 + 2 sum_k (-1)^k exp(-2 pi^2 k^2 sigma^2) cos(2 pi k x)), so from
    sigma > sqrt(ln(2/eps) / (2 pi^2)) (0.92 in float32, 1.36 in float64) it is taken as 1,
    the straight-through gradient, which also bounds the cost at 2J <= 24 exp per element.
    The mean over a period is 1 for every sigma, but between the spikes the gradient is tiny:
    at the integers 2 N(1/2; 0, sigma^2) = 3e-5 for sigma = 0.1, so an output stuck near the
    wrong integer gets almost no push.
    Parameter: sigma, a finite number > 0. A tensor broadcastable against x without enlarging
    it (shape (M, 1, 1) for x of shape (M, B, 1): one sigma per member) is taken unchecked;
    every member then sums the J of the largest sigma below the flat point (J = 6 in float32,
    12 in float64), the extra terms changing a slice's gradient by at most a few ulp, and a
    member above the flat point gets the straight-through 1.
    Source: the rounding Q&A (see :mod:`roundlab.activations.catalogue`), the answer replacing
    round's Dirac-comb derivative by Gaussians.
    """
    sigma = SIGMA.accept(sigma)
    x = as_float_tensor(x)
    info = np.finfo(x.dtype.as_numpy_dtype)
    flat_above = math.sqrt(math.log(2 / info.eps) / (2 * math.pi**2))
    # A sigma below the dtype's normal range would make 1/sigma overflow to inf and inf * 0 a
    # NaN away from the spikes; the smallest normal number gives the same spike, finitely.
    if tf.is_tensor(sigma):
        # float64, so each member's peak and scale round to x's dtype as a number's do
        sigma = tf.maximum(tf.cast(sigma, tf.float64), float(info.tiny))
        peak, scale = (tf.cast(c, x.dtype) for c in _peak_and_scale(sigma))
        comb = _comb(_reach(flat_above, info.eps), peak, scale)
        flat = sigma > flat_above

        def derivative(x: tf.Tensor) -> tf.Tensor:
            gaussians = comb(x)
            return tf.where(flat, tf.ones_like(gaussians), gaussians)

        return _round_with_gradient(x, derivative)
    if sigma > flat_above:
        return ste_round(x)  # the comb is flat: 1 to within eps
    sigma = max(sigma, float(info.tiny))
    peak, scale = _peak_and_scale(sigma)
    return _round_with_gradient(x, _comb(_reach(sigma, info.eps), peak, scale))


def _reach(sigma: float, eps: float) -> int:
    """J: how many half-integers on each side of x the comb sums."""
    return max(1, math.ceil(sigma * math.sqrt(2 * math.log(1 / eps))))


def _peak_and_scale(sigma: float | tf.Tensor) -> tuple[float | tf.Tensor, float | tf.Tensor]:
    """N(d; 0, sigma^2) = peak exp(-(d scale)^2): scaling d rather than dividing by sigma^2,
    which underflows first. ``sigma`` a number or a float64 tensor."""
    return 1 / (sigma * math.sqrt(2 * math.pi)), 1 / (sigma * math.sqrt(2))


def _comb(reach: int, peak: float | tf.Tensor, scale: float | tf.Tensor):
    """x -> sum of the Gaussians at the 2 ``reach`` half-integers nearest to x."""

    def comb(x: tf.Tensor) -> tf.Tensor:
        # a: distance to the nearest half-integer, in [0, 1/2]; the half-integers then sit
        # at distances j + a and j + 1 - a for j = 0, 1, ...
        a = tf.abs(frac(x) - 0.5)
        distances = [d for j in range(reach) for d in (j + a, j + 1 - a)]
        return peak * sum(tf.exp(-tf.square(d * scale)) for d in distances)

    return comb


def _round_with_gradient(x: tf.Tensor, derivative: Callable[[tf.Tensor], tf.Tensor]) -> tf.Tensor:
    """round(x), with ``derivative(x)`` times the upstream gradient as its gradient."""

    @tf.custom_gradient
    def _comb_round(x: tf.Tensor):
        return tf.round(x), lambda upstream: upstream * derivative(x)

    return _comb_round(x)
