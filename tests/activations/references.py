"""Independent references: numpy (float64) formulas for every activation, and the rounding Q&A's
TensorFlow code as posted, hand-written gradients included.

The two Q&A threads (cited in roundlab.activations.catalogue): the custom-activation Q&A, "How to
make a custom activation function with only Python in Tensorflow?", and the rounding Q&A, "What
activation function should I use to enforce rounding-like behaviour?".
Nothing here imports roundlab: the references are written from the formulas in the Q&As,
DESIGN.md and the papers, not from the implementation.
"""

from __future__ import annotations

import math

import numpy as np
import tensorflow as tf

# ---------------------------------------------------------------------------------------------
# numpy references: forward(x, **params) and gradient(x, **params), float64 math on the inputs.


def _frac(x):
    return np.mod(np.asarray(x, np.float64), 1.0)


def _sigmoid(z):
    with np.errstate(over="ignore"):  # exp overflows to inf at steepness 1e4: 1/(1+inf) = 0
        return 1.0 / (1.0 + np.exp(-z))


def _qa_spiky(x):
    r = x % 1
    if r <= 0.5:
        return r
    else:
        return 0


def _qa_d_spiky(x):
    r = x % 1
    if r <= 0.5:
        return 1
    else:
        return 0


# The custom-activation Q&A's numpy functions, as posted (np.vectorize of scalar functions).
np_spiky = np.vectorize(_qa_spiky, otypes=[np.float64])
np_d_spiky = np.vectorize(_qa_d_spiky, otypes=[np.float64])


def sigmoid_round(x, steepness):
    x = np.asarray(x, np.float64)
    return np.floor(x) + _sigmoid(steepness * (_frac(x) - 0.5))


def sigmoid_round_grad(x, steepness):
    z = steepness * (_frac(x) - 0.5)
    return steepness * _sigmoid(z) * _sigmoid(-z)  # k s (1 - s), without cancelling in 1 - s


def sine_round(x, width):
    """The rounding Q&A's approx_round_sin, except that the step is taken at r >= 1/2 + w/2, so the
    one point per period its strict comparisons miss gets the function's limit there."""
    x = np.asarray(x, np.float64)
    r, half = _frac(x), width / 2
    inside = np.abs(r - 0.5) < half
    sin_part = (1 + np.sin(np.pi * ((r - 0.5) / width))) / 2
    return np.floor(x) + sin_part * inside + (r >= 0.5 + half)


def sine_round_grad(x, width):
    r = _frac(x)
    inside = np.abs(r - 0.5) < width / 2
    return np.pi * np.cos(np.pi * ((r - 0.5) / width)) / (2 * width) * inside


def soft_round(x, alpha):
    x = np.asarray(x, np.float64)
    if alpha == 0:
        return x
    m = np.floor(x) + 0.5
    return m + np.tanh(alpha * (x - m)) / (2 * np.tanh(alpha / 2))


def soft_round_grad(x, alpha):
    x = np.asarray(x, np.float64)
    if alpha == 0:
        return np.ones_like(x)
    m = np.floor(x) + 0.5
    return alpha * (1 - np.tanh(alpha * (x - m)) ** 2) / (2 * np.tanh(alpha / 2))


def gaussian_comb(x, sigma, reach=50):
    """sum_n N(x; n + 1/2, sigma^2) over every half-integer within `reach` of x."""
    x = np.asarray(x, np.float64)
    centres = np.floor(x)[..., None] + 0.5 + np.arange(-reach, reach + 1)
    z = (x[..., None] - centres) / sigma
    return np.exp(-0.5 * z**2).sum(-1) / (sigma * math.sqrt(2 * math.pi))


def _ones(x, **_):
    return np.ones_like(np.asarray(x, np.float64))


FORWARD = {
    "identity": lambda x: np.asarray(x, np.float64),
    "hard_round": lambda x: np.round(np.asarray(x, np.float64)),  # half to even, as documented
    "ste_round": lambda x: np.round(np.asarray(x, np.float64)),
    "sigmoid_round": sigmoid_round,
    "sine_round": sine_round,
    "soft_round": soft_round,
    "comb_round": lambda x, sigma: np.round(np.asarray(x, np.float64)),
    "spiky": np_spiky,
}
GRADIENT = {
    "identity": _ones,
    "hard_round": None,  # TensorFlow has no gradient for round
    "ste_round": _ones,
    "sigmoid_round": sigmoid_round_grad,
    "sine_round": sine_round_grad,
    "soft_round": soft_round_grad,
    "comb_round": gaussian_comb,
    "spiky": np_d_spiky,
}


def base_name(name: str) -> str:
    """The TensorFlow activation a numpy twin must equal (sine_round_np -> sine_round)."""
    return name.removesuffix("_np")


# ---------------------------------------------------------------------------------------------
# The rounding Q&A's answer, verbatim but for TF2 spelling (tf.mod is tf.math.floormod now).
# Its float32 casts mean it only takes float32 tensors.


def approx_round(x, steepness=1):
    floor_part = tf.floor(x)
    remainder = tf.math.floormod(x, 1)
    return floor_part + tf.sigmoid(steepness * (remainder - 0.5))


def approx_round_grad(x, steepness=1):
    remainder = tf.math.floormod(x, 1)
    sig = tf.sigmoid(steepness * (remainder - 0.5))
    return sig * (1 - sig)


def approx_round_sin(x, width=0.1):
    if width > 1 or width <= 0:
        raise ValueError("Width must be between zero (exclusive) and one (inclusive)")
    floor_part = tf.floor(x)
    remainder = tf.math.floormod(x, 1)
    return floor_part + clipped_sin(remainder, width)


def clipped_sin(x, width):
    half_width = width / 2
    sin_part = (1 + tf.sin(np.pi * ((x - 0.5) / width))) / 2
    whole = sin_part * tf.cast(tf.abs(x - 0.5) < half_width, tf.float32)
    whole += tf.cast(x > 0.5 + half_width, tf.float32)
    return whole


def approx_round_grad_sin(x, width=0.1):
    if width > 1 or width <= 0:
        raise ValueError("Width must be between zero (exclusive) and one (inclusive)")
    remainder = tf.math.floormod(x, 1)
    return clipped_cos(remainder, width)


def clipped_cos(x, width):
    half_width = width / 2
    cos_part = np.pi * tf.cos(np.pi * ((x - 0.5) / width)) / (2 * width)
    return cos_part * tf.cast(tf.abs(x - 0.5) < half_width, dtype=tf.float32)
