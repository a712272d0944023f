"""What the catalogue holds about one activation, and where an activation comes from."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tensorflow as tf

from roundlab.activations.parameters import Parameter


@dataclass(frozen=True)
class Source:
    """A publication or Q&A thread an activation comes from."""

    cite: str  # how tables and docstrings name it
    title: str
    link: str | None = None


@dataclass(frozen=True)
class Spec:
    """One activation: its function, parameter, backend, source, and its texts for documents.

    The name is the function's name, so ``roundlab.activations.<name>`` is the function.
    """

    function: Callable[..., tf.Tensor]  # f(x, <param>=value)
    summary: str  # one line saying what it is, without the parameter
    forward: str  # markdown, for tables
    backward: str  # markdown, for tables
    parameter: Parameter | None = None
    numpy_backed: bool = False
    source: Source | None = None  # None for the controls
    detail: str = ""  # which part of the source, e.g. "`approx_round`"

    @property
    def name(self) -> str:
        return self.function.__name__

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
