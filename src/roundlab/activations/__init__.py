"""Rounding activations: every surrogate for round() from the two threads and the literature.

Each is a plain TensorFlow function ``f(x, <param>=value)`` (XLA-compilable, GPU-placeable)
with its formula, gradient, parameter range and source in its docstring; ``get(name, **params)``
looks one up with its parameter checked; ``RoundingActivation`` is the Keras layer.

===================  =========================  ===============================  =============
name                 forward                    backward                         parameter
===================  =========================  ===============================  =============
identity             x                          1                                -
hard_round           round(x)                   none (TF returns None)           -
ste_round            round(x)                   1 (straight-through)             -
sigmoid_round        thread's approx_round      k s (1 - s)                      steepness > 0
sine_round           thread's approx_round_sin  clipped cosine                   width (0, 1]
soft_round           Agustsson & Theis 2020     autodiff                         alpha >= 0
comb_round           round(x)                   Gaussians at the half-integers   sigma > 0
spiky                first thread's example     1 where frac(x) <= 1/2           -
spiky_np, sigmoid_round_np, sine_round_np: the same in numpy via ``numpy_activation``.
===================  =========================  ===============================  =============

Tie rule: round(x) rounds half to even everywhere in roundlab (0.5 -> 0, 1.5 -> 2), the rule
of ``tf.round``, ``np.round`` and IEEE 754, so TensorFlow and numpy code agree; the smooth
surrogates return exactly n + 1/2 at the half-integers.
"""

from roundlab.activations.controls import hard_round, identity
from roundlab.activations.layer import RoundingActivation
from roundlab.activations.numpy_bridge import numpy_activation
from roundlab.activations.numpy_twins import sigmoid_round_np, sine_round_np, spiky_np
from roundlab.activations.registry import Activation, Spec, get, names, spec
from roundlab.activations.sawtooth import spiky
from roundlab.activations.sigmoid import sigmoid_round
from roundlab.activations.sine import sine_round
from roundlab.activations.soft import soft_round
from roundlab.activations.straight_through import comb_round, ste_round

__all__ = [
    "Activation",
    "RoundingActivation",
    "Spec",
    "comb_round",
    "get",
    "hard_round",
    "identity",
    "names",
    "numpy_activation",
    "sigmoid_round",
    "sigmoid_round_np",
    "sine_round",
    "sine_round_np",
    "soft_round",
    "spiky",
    "spiky_np",
    "spec",
    "ste_round",
]
