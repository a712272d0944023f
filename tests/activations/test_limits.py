"""Limits in the parameter: where each surrogate becomes the identity or round."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab import activations

from .support import GRID


def _away_from_ties(margin):
    return GRID[np.abs(np.mod(GRID, 1) - 0.5) > margin]


@pytest.mark.parametrize("alpha", [0.0, 1e-9, 1e-3, 2e-3])
def test_soft_round_with_alpha_near_zero_is_identity(alpha):
    # 1e-3 and up use the formula, which differs from x by at most alpha^2 / 62
    y = activations.soft_round(GRID, alpha=alpha).numpy()
    np.testing.assert_allclose(y, GRID, rtol=0, atol=1e-6)


def test_soft_round_approaches_identity_continuously_across_the_guard():
    x = GRID.astype(np.float64)
    below = activations.soft_round(x, alpha=0.999e-3).numpy()
    above = activations.soft_round(x, alpha=1.001e-3).numpy()
    np.testing.assert_allclose(above, below, rtol=0, atol=(1.001e-3) ** 2 / 62)


@pytest.mark.parametrize("alpha", [1e3, 1e4])
def test_soft_round_large_alpha_is_round(alpha):
    x = _away_from_ties(0.01)
    np.testing.assert_array_equal(activations.soft_round(x, alpha=alpha), np.round(x))


@pytest.mark.parametrize("steepness", [1e4, 1e5])
def test_sigmoid_round_large_steepness_is_round_away_from_ties(steepness):
    x = _away_from_ties(0.01)
    np.testing.assert_allclose(activations.sigmoid_round(x, steepness), np.round(x), atol=1e-6)


def test_sine_round_small_width_is_round_away_from_ties():
    x = _away_from_ties(1e-4)
    np.testing.assert_array_equal(activations.sine_round(x, width=1e-4), np.round(x))


def test_sine_round_full_width_is_half_a_sine_over_the_unit_interval():
    x = GRID.astype(np.float64)
    expected = np.floor(x) + (1 + np.sin(np.pi * (np.mod(x, 1) - 0.5))) / 2
    np.testing.assert_allclose(activations.sine_round(x, width=1.0), expected, atol=1e-15)
