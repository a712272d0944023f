"""Rounding activations: every surrogate for round() from the two Q&A threads and the literature.

Each is a plain TensorFlow function ``f(x, <param>=value)`` (XLA-compilable, GPU-placeable)
with its formula, gradient, parameter range and source in its docstring, and an entry in
:mod:`roundlab.activations.catalogue`, the one list of them (with their defaults and sources),
from which the registry, the configs and the README table derive. ``get(name, **params)``
looks one up with its parameter checked; ``RoundingActivation`` is the Keras layer;
``numpy_activation`` turns a numpy function and its derivative into a TensorFlow op, as the
numpy twins ``spiky_np``, ``sigmoid_round_np`` and ``sine_round_np`` do.

Tie rule: round(x) rounds half to even everywhere in roundlab (0.5 -> 0, 1.5 -> 2), the rule
of ``tf.round``, ``np.round`` and IEEE 754, so TensorFlow and numpy code agree; the smooth
surrogates return exactly n + 1/2 at the half-integers.

May import only the leaves (roundlab.errors, paths, ...): every other stage builds on it.
"""

from roundlab.activations.catalogue import CATALOGUE, names, numpy_backed, spec
from roundlab.activations.entry import Spec
from roundlab.activations.layer import RoundingActivation
from roundlab.activations.numpy_bridge import numpy_activation
from roundlab.activations.parameters import activation_params
from roundlab.activations.registry import Activation, get

# Each catalogued function under its name (roundlab.activations.sine_round, ...), so that an
# entry added to the catalogue is exported without being listed again here.
globals().update({entry.name: entry.function for entry in CATALOGUE})

__all__ = [
    "Activation",
    "RoundingActivation",
    "Spec",
    "activation_params",
    "get",
    "names",
    "numpy_activation",
    "spec",
    "numpy_backed",
    *names(),
]
