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
from roundlab.activations.parameters import STEEPNESS, WIDTH


def spiky_np(x: tf.Tensor) -> tf.Tensor:
    """:func:`roundlab.activations.spiky` in numpy (the custom-activation Q&A's recipe)."""
    return numpy_activation(_spiky, _spiky_grad, name="spiky_np")(x)


def sigmoid_round_np(x: tf.Tensor, steepness: float = STEEPNESS.default) -> tf.Tensor:
    """:func:`roundlab.activations.sigmoid_round` in numpy (the custom-activation Q&A's recipe);
    steepness a finite number > 0."""
    steepness = STEEPNESS.validate(steepness)
    return numpy_activation(
        partial(_sigmoid_round, steepness=steepness),
        partial(_sigmoid_round_grad, steepness=steepness),
        name="sigmoid_round_np",
    )(x)


def sine_round_np(x: tf.Tensor, width: float = WIDTH.default) -> tf.Tensor:
    """:func:`roundlab.activations.sine_round` in numpy with np.sin (the custom-activation Q&A's
    recipe); width in (0, 1]."""
    width = WIDTH.validate(width)
    return numpy_activation(
        partial(_sine_round, width=width),
        partial(_sine_round_grad, width=width),
        name="sine_round_np",
    )(x)


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
