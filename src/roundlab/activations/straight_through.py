"""Round forward, a surrogate gradient backward: straight-through and the Gaussian comb."""

from __future__ import annotations

import math

import numpy as np
import tensorflow as tf

from roundlab.activations._ops import as_float_tensor, frac
from roundlab.activations.parameters import SIGMA


def ste_round(x: tf.Tensor) -> tf.Tensor:
    """Straight-through round (Bengio et al. 2013, "Estimating or propagating gradients through
    stochastic neurons for conditional computation").

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


def comb_round(x: tf.Tensor, sigma: float = SIGMA.default) -> tf.Tensor:
    """Round forward, a smoothed Dirac comb backward (the second thread's last answer).

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
    Parameter: sigma, a finite number > 0.
    """
    sigma = SIGMA.validate(sigma)
    x = as_float_tensor(x)
    eps = float(np.finfo(x.dtype.as_numpy_dtype).eps)
    if sigma > math.sqrt(math.log(2 / eps) / (2 * math.pi**2)):
        return _ste_round(x)  # the comb is flat: 1 to within eps
    # A sigma below the dtype's normal range would make 1/sigma overflow to inf and inf * 0 a
    # NaN away from the spikes; the smallest normal number gives the same spike, finitely.
    sigma = max(sigma, float(np.finfo(x.dtype.as_numpy_dtype).tiny))
    reach = max(1, math.ceil(sigma * math.sqrt(2 * math.log(1 / eps))))
    peak = 1 / (sigma * math.sqrt(2 * math.pi))
    # N(d; 0, sigma^2) = peak exp(-w^2) with w = d / (sigma sqrt 2): scaling d rather than
    # dividing by sigma^2, which underflows first
    scale = 1 / (sigma * math.sqrt(2))

    @tf.custom_gradient
    def _comb_round(x: tf.Tensor):
        def grad(upstream: tf.Tensor) -> tf.Tensor:
            # a: distance to the nearest half-integer, in [0, 1/2]; the half-integers then sit
            # at distances j + a and j + 1 - a for j = 0, 1, ...
            a = tf.abs(frac(x) - 0.5)
            distances = [d for j in range(reach) for d in (j + a, j + 1 - a)]
            comb = peak * sum(tf.exp(-tf.square(d * scale)) for d in distances)
            return upstream * comb

        return tf.round(x), grad

    return _comb_round(x)
