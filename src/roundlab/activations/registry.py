"""One registry of every activation: look them up by name, with their parameter checked."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

from roundlab.activations.controls import hard_round, identity
from roundlab.activations.numpy_twins import sigmoid_round_np, sine_round_np, spiky_np
from roundlab.activations.parameters import ALPHA, SIGMA, STEEPNESS, WIDTH, Parameter
from roundlab.activations.sawtooth import spiky
from roundlab.activations.sigmoid import sigmoid_round
from roundlab.activations.sine import sine_round
from roundlab.activations.soft import soft_round
from roundlab.activations.straight_through import comb_round, ste_round


@dataclass(frozen=True)
class Spec:
    """What the registry knows about one activation: its function and its parameter, if any."""

    name: str
    function: Callable[..., tf.Tensor]  # f(x, <param>=value)
    parameter: Parameter | None = None
    numpy_backed: bool = False

    @property
    def param(self) -> str | None:
        """The parameter's name, or None for an activation without one."""
        return self.parameter.name if self.parameter else None

    @property
    def default(self) -> float | None:
        return self.parameter.default if self.parameter else None

    @property
    def constraint(self) -> str | None:
        """What the parameter must satisfy, e.g. "in (0, 1]"."""
        return self.parameter.constraint if self.parameter else None

    def validate(self, **params: Any) -> dict[str, float]:
        """The full parameter dict (default filled in), or ValueError for an unknown name or a
        value out of range."""
        unknown = sorted(set(params) - {self.param})
        if unknown:
            accepted = f"only {self.param!r}" if self.param else "no parameters"
            received = ", ".join(f"{key}={params[key]!r}" for key in unknown)
            raise ValueError(f"{self.name} takes {accepted}. Received: {received}")
        if self.parameter is None:
            return {}
        return {self.param: self.parameter.validate(params.get(self.param, self.default))}


class Activation:
    """A registered activation with its parameter bound: call it on a tensor.

    ``name``: the registry name; ``params``: its parameter with the default filled in (empty
    for none); ``supports_jit``: False for the numpy-backed ones, which cannot be XLA-compiled.
    """

    def __init__(self, spec: Spec, params: Mapping[str, float]):
        self.spec = spec
        self.name = spec.name
        self.params = dict(params)
        self.supports_jit = not spec.numpy_backed

    def __call__(self, x: tf.Tensor) -> tf.Tensor:
        return self.spec.function(x, **self.params)

    def __repr__(self) -> str:
        params = ", ".join(f"{key}={value!r}" for key, value in self.params.items())
        return f"Activation({self.name!r}{', ' if params else ''}{params})"


_SPECS = {
    spec.name: spec
    for spec in (
        Spec("identity", identity),
        Spec("hard_round", hard_round),
        Spec("ste_round", ste_round),
        Spec("sigmoid_round", sigmoid_round, STEEPNESS),
        Spec("sine_round", sine_round, WIDTH),
        Spec("soft_round", soft_round, ALPHA),
        Spec("comb_round", comb_round, SIGMA),
        Spec("spiky", spiky),
        Spec("spiky_np", spiky_np, numpy_backed=True),
        Spec("sigmoid_round_np", sigmoid_round_np, STEEPNESS, numpy_backed=True),
        Spec("sine_round_np", sine_round_np, WIDTH, numpy_backed=True),
    )
}

# Every parameter name some activation takes (the Keras layer routes these to get()).
PARAMETER_NAMES = frozenset(spec.param for spec in _SPECS.values() if spec.param)


def names() -> list[str]:
    """Every registered activation name, the TensorFlow ones first, then the numpy twins."""
    return list(_SPECS)


def spec(name: str) -> Spec:
    """The registry entry for ``name``; ValueError listing the known names if there is none."""
    try:
        return _SPECS[name]
    except (KeyError, TypeError):
        raise ValueError(f"activation must be one of {names()}. Received: name={name!r}") from None


def get(name: str, **params: Any) -> Activation:
    """The activation ``name`` with its parameter checked now, before any tensor is built.

    ``get("sine_round", width=0.2)(x)``. Raises ValueError for an unknown name (listing the
    known ones), an unknown parameter, or a value out of range ("width must be in (0, 1].
    Received: width=1.5").
    """
    entry = spec(name)
    return Activation(entry, entry.validate(**params))
