"""Round forward, a surrogate gradient backward: straight-through and the Gaussian comb."""

from __future__ import annotations

import math

import numpy as np
import tensorflow as tf

from roundlab.activations._inputs import as_float_tensor
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
    half-integers: those within J = max(1, ceil(sigma * sqrt(2 ln(1/eps)))) of x, eps the
    dtype's machine epsilon, so every omitted term is below the dtype's resolution (J = 1, the
    two nearest, for sigma <= 0.17 in float32; each extra unit of J costs two exp per element).
    Its mean over a period is 1 (the straight-through slope), but between the spikes it is
    tiny: at the integers 2 N(1/2; 0, sigma^2) = 3e-5 for sigma = 0.1, so an output stuck near
    the wrong integer gets almost no push. Large sigma tends to ste_round.
    Parameter: sigma, a finite number > 0.
    """
    sigma = SIGMA.validate(sigma)
    x = as_float_tensor(x)
    dtype = x.dtype.as_numpy_dtype
    # A sigma below the dtype's normal range would make 1/sigma overflow to inf and inf * 0 a
    # NaN away from the spikes; the smallest normal number gives the same spike, finitely.
    sigma = max(sigma, float(np.finfo(dtype).tiny))
    reach = max(1, math.ceil(sigma * math.sqrt(2 * math.log(1 / np.finfo(dtype).eps))))
    peak = 1 / (sigma * math.sqrt(2 * math.pi))

    def pdf(distance: tf.Tensor) -> tf.Tensor:
        z = distance / sigma  # z, not distance**2 / sigma**2: sigma**2 underflows first
        return peak * tf.exp(-0.5 * z * z)

    @tf.custom_gradient
    def _comb_round(x: tf.Tensor):
        def grad(upstream: tf.Tensor) -> tf.Tensor:
            # a: distance to the nearest half-integer, in [0, 1/2]; the half-integers then sit
            # at distances j + a and j + 1 - a for j = 0, 1, ...
            a = tf.abs(x - tf.floor(x) - 0.5)
            comb = sum(pdf(j + a) + pdf(j + 1 - a) for j in range(reach))
            return upstream * comb

        return tf.round(x), grad

    return _comb_round(x)
