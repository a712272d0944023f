"""Look activations up by name, with their parameter checked: ``get(name, **params)``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import tensorflow as tf

from roundlab.activations.catalogue import spec
from roundlab.activations.entry import Spec


class Activation:
    """A catalogued activation with its parameter bound: call it on a tensor.

    ``name``: the catalogue name; ``params``: its parameter with the default filled in (empty
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


def get(name: str, **params: Any) -> Activation:
    """The activation ``name`` with its parameter checked now, before any tensor is built.

    ``get("sine_round", width=0.2)(x)``. Raises ValueError for an unknown name (listing the
    known ones), an unknown parameter, or a value out of range ("width must be in (0, 1].
    Received: width=1.5").
    """
    entry = spec(name)
    return Activation(entry, entry.validate(**params))
