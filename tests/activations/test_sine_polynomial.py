"""sine_round's sine is a polynomial (XLA's sine is slow on CPU): it must be the sine."""

from __future__ import annotations

import math

import numpy as np
import pytest
import tensorflow as tf

from roundlab.activations.sine import half_period_sin

HALF_PI32 = np.float32(math.pi / 2)


def _half_period(dtype, n=200_001):
    theta = np.linspace(-math.pi / 2, math.pi / 2, n).astype(dtype)
    return np.concatenate([theta, [-HALF_PI32, HALF_PI32, 0.0, 1e-30, -1e-30]]).astype(dtype)


def test_float32_polynomial_agrees_with_tf_sin_to_float32_rounding():
    theta = tf.constant(_half_period(np.float32))
    difference = half_period_sin(theta).numpy() - tf.sin(theta).numpy()
    assert np.max(np.abs(difference)) <= 2**-23  # one float32 ulp at 1


def test_float32_polynomial_is_within_three_ulp_of_the_exact_sine():
    theta = _half_period(np.float32)
    exact = np.sin(theta.astype(np.float64))
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    poly = half_period_sin(tf.constant(theta)).numpy().astype(np.float64)
    assert np.max(np.abs(poly - exact) / ulp) <= 3


def test_float64_polynomial_agrees_with_sin_to_float64_rounding():
    theta = _half_period(np.float64)
    poly = half_period_sin(tf.constant(theta)).numpy()
    assert np.max(np.abs(poly - np.sin(theta))) <= 2 * np.finfo(np.float64).eps


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_polynomial_is_odd_and_bounded_by_one(dtype):
    theta = _half_period(dtype)
    poly = half_period_sin(tf.constant(theta)).numpy()
    negated = half_period_sin(tf.constant(-theta)).numpy()
    np.testing.assert_array_equal(negated, -poly)
    assert np.max(np.abs(poly)) <= 1.0
