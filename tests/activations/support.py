"""Shared grids and parametrization cases for the activation tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import tensorflow as tf

from roundlab import activations

# Dyadic steps hit every integer and half-integer exactly (and the window edges of the widths
# below); the linspace adds points that are not binary fractions.
GRID = np.unique(
    np.concatenate([np.arange(-3, 3 + 1 / 64, 1 / 64), np.linspace(-2.95, 2.95, 237)])
).astype(np.float32)
INTEGERS = np.arange(-3, 4, dtype=np.float32)
HALF_INTEGERS = np.arange(-2.5, 3, dtype=np.float32)

# Parameter values the forward and gradient tests sweep, per parameter name.
PARAMETER_VALUES = {
    "steepness": [1.0, 10.0, 100.0],
    "width": [0.1, 0.5, 1.0],
    "alpha": [0.0, 0.5, 5.0, 50.0],
    "sigma": [0.05, 0.1, 0.5, 2.0],
}


def cases(names: list[str] | None = None) -> list[tuple[str, dict[str, float]]]:
    """(name, params) for every registered activation and every swept value of its parameter."""
    result = []
    for name in names or activations.names():
        param = activations.spec(name).param
        values = PARAMETER_VALUES[param] if param else [None]
        result.extend((name, {param: v} if param else {}) for v in values)
    return result


def case_id(case: tuple[str, dict[str, float]]) -> str:
    name, params = case
    return "-".join([name, *(f"{k}={v:g}" for k, v in params.items())])


def tf_names() -> list[str]:
    return [n for n in activations.names() if not activations.spec(n).numpy_backed]


def numpy_names() -> list[str]:
    return [n for n in activations.names() if activations.spec(n).numpy_backed]


def value_and_grad(
    fn: Callable[[tf.Tensor], tf.Tensor], x: np.ndarray, upstream: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """fn(x) and d fn / dx (elementwise, times ``upstream`` if given); None where TF has none."""
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    grad = tape.gradient(y, x, output_gradients=upstream)
    return y.numpy(), None if grad is None else grad.numpy()
