"""The activations' parameters: default, valid range, and the one check every entry point uses.

A parameter is a Python number, checked when :func:`roundlab.activations.get` builds an
activation (before any tensor exists) and again by each plain function, with the error every
roundlab check raises: "what must hold. Received: name=value". The TensorFlow functions also take
a tensor instead (one value per member of a vectorised training run, broadcast against x): it is
used unchecked, the caller having checked the Python values it was made from.

The defaults are the ones training uses: conf/activation/*.yaml is generated from them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import tensorflow as tf


@dataclass(frozen=True)
class Parameter:
    """One activation parameter: its name, default and the range it must lie in."""

    name: str
    default: float
    constraint: str  # what must hold, worded for the error message
    holds: Callable[[float], bool]

    def validate(self, value: object) -> float:
        """``value`` as a float, or a ValueError of the form
        "<name> must be <constraint>. Received: <name>=<value>".

        Booleans, non-numbers, NaN and infinities are rejected along with out-of-range numbers.
        """
        is_number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if is_number and math.isfinite(float(value)) and self.holds(float(value)):
            return float(value)
        shown = value if is_number else repr(value)
        raise ValueError(f"{self.name} must be {self.constraint}. Received: {self.name}={shown}")

    def accept(self, value: object) -> float | tf.Tensor:
        """A tensor unchanged (its values are the caller's to check), anything else validated."""
        return value if tf.is_tensor(value) else self.validate(value)


STEEPNESS = Parameter("steepness", 10.0, "a finite number > 0", lambda k: k > 0)
WIDTH = Parameter("width", 0.5, "in (0, 1]", lambda w: 0 < w <= 1)
ALPHA = Parameter("alpha", 4.0, "a finite number >= 0", lambda a: a >= 0)
SIGMA = Parameter("sigma", 0.25, "a finite number > 0", lambda s: s > 0)


def activation_params(node: Any) -> dict[str, float]:
    """An activation config node's parameters (every key but ``name``) as floats."""
    return {str(k): float(v) for k, v in node.items() if k != "name"}
