"""numpy versions of spiky, sigmoid_round and sine_round, made TensorFlow ops by
:func:`numpy_activation` (the custom-activation Q&A's way), to compare with the versions built
from TensorFlow ops.

Each twin computes the same function and gradient as its TensorFlow version (the same
definitions, see their docstrings), in whole-array numpy rather than the Q&A's
``np.vectorize`` of a scalar function, which is slower still (8 to 9x for spiky).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import tensorflow as tf

from roundlab.activations.numpy_bridge import numpy_activation
from roundlab.activations.parameters import STEEPNESS, WIDTH, Parameter


def spiky_np(x: tf.Tensor) -> tf.Tensor:
    """:func:`roundlab.activations.spiky` in numpy (the custom-activation Q&A's recipe)."""
    return numpy_activation(_spiky, _spiky_grad, name="spiky_np")(x)


def sigmoid_round_np(x: tf.Tensor, steepness: float = STEEPNESS.default) -> tf.Tensor:
    """:func:`roundlab.activations.sigmoid_round` in numpy (the custom-activation Q&A's recipe);
    steepness a finite number > 0."""
    return _twin(x, "sigmoid_round_np", _sigmoid_round, _sigmoid_round_grad, STEEPNESS, steepness)


def sine_round_np(x: tf.Tensor, width: float = WIDTH.default) -> tf.Tensor:
    """:func:`roundlab.activations.sine_round` in numpy with np.sin (the custom-activation Q&A's
    recipe); width in (0, 1]."""
    return _twin(x, "sine_round_np", _sine_round, _sine_round_grad, WIDTH, width)


def _twin(x, name: str, function, gradient, parameter: Parameter, value: float) -> tf.Tensor:
    """``function`` and its ``gradient`` with the checked ``parameter`` bound, applied to x."""
    bound = {parameter.name: parameter.validate(value)}
    return numpy_activation(partial(function, **bound), partial(gradient, **bound), name=name)(x)


def _spiky(x: np.ndarray) -> np.ndarray:
    r = np.mod(x, 1)
    return np.where(r <= 0.5, r, 0)


def _spiky_grad(x: np.ndarray) -> np.ndarray:
    return np.where(np.mod(x, 1) <= 0.5, 1, 0)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    # The tanh form never overflows, unlike 1 / (1 + exp(-z)) at steepness 1e4.
    return 0.5 + 0.5 * np.tanh(0.5 * z)


def _sigmoid_round(x: np.ndarray, steepness: float) -> np.ndarray:
    return np.floor(x) + _sigmoid(steepness * (np.mod(x, 1) - 0.5))


def _sigmoid_round_grad(x: np.ndarray, steepness: float) -> np.ndarray:
    s = _sigmoid(steepness * (np.mod(x, 1) - 0.5))
    return steepness * s * (1 - s)


def _sine_theta(x: np.ndarray, width: float) -> np.ndarray:
    return np.pi * ((np.mod(x, 1) - 0.5) / width)


def _sine_round(x: np.ndarray, width: float) -> np.ndarray:
    theta = _sine_theta(x, width)
    sine = np.where(np.abs(theta) < np.pi / 2, np.sin(theta), np.sign(theta))
    return np.floor(x) + (1 + sine) / 2


def _sine_round_grad(x: np.ndarray, width: float) -> np.ndarray:
    theta = _sine_theta(x, width)
    return np.where(np.abs(theta) < np.pi / 2, np.pi / (2 * width) * np.cos(theta), 0)
