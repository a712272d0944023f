"""The rounding Q&A's code as posted: its forwards are ours, its hand-written gradients are
checked against autodiff (approx_round_grad lacks the factor k; approx_round_grad_sin is right)."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from roundlab import activations

from .references import approx_round, approx_round_grad, approx_round_grad_sin, approx_round_sin
from .support import GRID, value_and_grad

WIDTHS = [0.1, 0.25, 0.5, 1.0]


@pytest.mark.parametrize("steepness", [1.0, 5.0, 10.0, 1e4])
def test_sigmoid_round_is_the_qas_approx_round_bit_for_bit(steepness):
    x = np.concatenate([GRID, np.random.default_rng(0).uniform(-50, 50, 10_000)]).astype("f4")
    expected = approx_round(tf.constant(x), steepness).numpy()
    np.testing.assert_array_equal(activations.sigmoid_round(x, steepness), expected)


def _upper_window_edge(width):
    """Grid points where frac(x) = 1/2 + w/2 exactly: the Q&A's strict comparisons miss them."""
    return np.mod(GRID, 1) == np.float32(0.5) + np.float32(width / 2)


@pytest.mark.parametrize("width", WIDTHS)
def test_sine_round_is_the_qas_approx_round_sin_to_float32_rounding(width):
    ours = activations.sine_round(GRID, width).numpy()
    posted = approx_round_sin(tf.constant(GRID), width).numpy()
    edge = _upper_window_edge(width)
    # the only difference is the sine: one float32 ulp of the fractional part
    np.testing.assert_allclose(ours[~edge], posted[~edge], rtol=0, atol=2**-23 * 4)


@pytest.mark.parametrize("width", [0.25, 0.5])
def test_qas_approx_round_sin_drops_to_floor_at_the_upper_window_edge(width):
    edge = _upper_window_edge(width)
    assert edge.sum() == 6  # once per period on this grid
    x = GRID[edge]
    posted = approx_round_sin(tf.constant(x), width).numpy()
    ours = activations.sine_round(x, width).numpy()
    np.testing.assert_array_equal(posted, np.floor(x))  # neither branch: 0 added
    np.testing.assert_array_equal(ours, np.floor(x) + 1)  # the limit from both sides
    just_below = approx_round_sin(tf.constant(x - 2**-20), width).numpy()
    np.testing.assert_allclose(just_below, np.floor(x) + 1, atol=1e-6)


@pytest.mark.parametrize("steepness", [1.0, 5.0, 10.0])
def test_qas_approx_round_grad_is_autodiff_only_at_steepness_one(steepness):
    _, autodiff = value_and_grad(lambda x: approx_round(x, steepness), GRID)
    hand_written = approx_round_grad(tf.constant(GRID), steepness).numpy()
    _, ours = value_and_grad(activations.get("sigmoid_round", steepness=steepness), GRID)
    # the same derivative, computed another way: equal up to float32 rounding
    np.testing.assert_allclose(ours, autodiff, rtol=0, atol=1e-6 * steepness)
    # it lacks the factor k: right at k = 1, k times too small elsewhere
    np.testing.assert_allclose(autodiff, steepness * hand_written, rtol=1e-5)
    assert np.allclose(autodiff, hand_written, rtol=1e-5) == (steepness == 1.0)


@pytest.mark.parametrize("width", WIDTHS)
def test_qas_approx_round_grad_sin_matches_autodiff(width):
    _, autodiff = value_and_grad(lambda x: approx_round_sin(x, width), GRID)
    hand_written = approx_round_grad_sin(tf.constant(GRID), width).numpy()
    _, ours = value_and_grad(activations.get("sine_round", width=width), GRID)
    scale = np.pi / (2 * width)
    np.testing.assert_allclose(hand_written, autodiff, rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(ours, hand_written, rtol=0, atol=1e-6 * scale)


def test_qas_sine_functions_reject_width_outside_zero_one_as_ours_do():
    for width in (0.0, 1.5):
        with pytest.raises(ValueError, match="Width must be between"):
            approx_round_sin(tf.constant(GRID), width)
        with pytest.raises(ValueError, match=r"width must be in \(0, 1\]"):
            activations.sine_round(GRID, width)
