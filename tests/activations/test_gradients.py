"""Gradients against numpy formulas and finite differences; finiteness at extreme parameters."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab import activations

from .references import GRADIENT, base_name, gaussian_comb
from .support import GRID, INTEGERS, case_id, cases, value_and_grad

DIFFERENTIABLE = [c for c in cases() if c[0] != "hard_round"]
SMOOTH = [
    "identity",
    "sigmoid_round",
    "sine_round",
    "soft_round",
    "sigmoid_round_np",
    "sine_round_np",
]


@pytest.mark.parametrize("case", DIFFERENTIABLE, ids=case_id)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gradient_matches_numpy_formula(case, dtype):
    name, params = case
    x = GRID.astype(dtype)
    _, grad = value_and_grad(activations.get(name, **params), x)
    expected = GRADIENT[base_name(name)](x, **params)
    assert grad.dtype == dtype
    scale = max(1.0, np.abs(expected).max())
    tolerance = 2e-5 if dtype == np.float32 else 1e-11
    np.testing.assert_allclose(grad, expected, rtol=0, atol=tolerance * scale)


def test_gradient_is_scaled_by_upstream():
    upstream = np.linspace(-2, 3, GRID.size).astype(np.float32)
    for name, params in DIFFERENTIABLE:
        fn = activations.get(name, **params)
        _, plain = value_and_grad(fn, GRID)
        _, scaled = value_and_grad(fn, GRID, upstream)
        np.testing.assert_allclose(scaled, upstream * plain, rtol=1e-6, err_msg=name)


@pytest.mark.parametrize("case", cases(SMOOTH), ids=case_id)
def test_gradient_matches_finite_differences_where_smooth(case):
    name, params = case
    x = GRID.astype(np.float64)
    x = x[np.abs(np.mod(x + 0.5, 1) - 0.5) > 1e-3]  # sigmoid_round jumps at the integers
    fn = activations.get(name, **params)
    _, grad = value_and_grad(fn, x)
    h = 1e-7
    central = (fn(x + h).numpy() - fn(x - h).numpy()) / (2 * h)
    # sine_round's second derivative jumps at the window edges: O(h f'') error there
    np.testing.assert_allclose(grad, central, rtol=0, atol=1e-5 * max(1.0, np.abs(grad).max()))


def test_hard_round_has_no_gradient():
    _, grad = value_and_grad(activations.get("hard_round"), GRID)
    assert grad is None  # not zeros: TensorFlow has no gradient for round at all


EXTREMES = [
    ("sigmoid_round", {"steepness": 1e4}),
    ("sigmoid_round", {"steepness": 1e-6}),
    ("sigmoid_round_np", {"steepness": 1e4}),
    ("sine_round", {"width": 1e-6}),
    ("sine_round_np", {"width": 1e-6}),
    ("soft_round", {"alpha": 0.0}),
    ("soft_round", {"alpha": 1e-12}),
    ("soft_round", {"alpha": 1e-3}),
    ("soft_round", {"alpha": 1e4}),
    ("comb_round", {"sigma": 1e-6}),
    ("comb_round", {"sigma": 1e-40}),  # below float32's normal range
    ("comb_round", {"sigma": 1e6}),
]


@pytest.mark.parametrize("case", EXTREMES, ids=case_id)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_gradients_are_finite_at_extreme_parameters(case, dtype):
    name, params = case
    y, grad = value_and_grad(activations.get(name, **params), GRID.astype(dtype))
    assert np.all(np.isfinite(y))
    assert np.all(np.isfinite(grad))


def test_sigmoid_round_gradient_is_the_true_derivative_with_factor_steepness():
    x = GRID.astype(np.float64)
    _, at_one = value_and_grad(activations.get("sigmoid_round", steepness=1.0), x)
    _, at_eight = value_and_grad(activations.get("sigmoid_round", steepness=8.0), x)
    s = 1 / (1 + np.exp(-8.0 * (np.mod(x, 1) - 0.5)))
    np.testing.assert_allclose(at_eight, 8.0 * s * (1 - s), rtol=1e-12)
    assert at_one.max() == pytest.approx(0.25)  # k s (1 - s) peaks at k / 4
    assert at_eight.max() == pytest.approx(2.0)


def test_sigmoid_round_gradient_stays_accurate_in_the_tails():
    # k s (1 - s) from float32 s is 0 beyond |z| = 17, where 1 - s rounds to 0; the true
    # derivative k e^-|z| / (1 + e^-|z|)^2 is not
    x = np.linspace(0.0, 0.999, 1000).astype(np.float32)
    _, grad = value_and_grad(activations.get("sigmoid_round", steepness=100.0), x)
    expected = GRADIENT["sigmoid_round"](x, steepness=100.0)
    assert expected.min() > 1e-20
    np.testing.assert_allclose(grad, expected, rtol=1e-4)


def test_soft_round_gradient_at_alpha_zero_is_one():
    _, grad = value_and_grad(activations.get("soft_round", alpha=0.0), GRID)
    np.testing.assert_array_equal(grad, 1.0)


@pytest.mark.parametrize("sigma", [0.05, 0.1, 0.3, 0.9, 1.5])
def test_comb_round_gradient_averages_to_one_over_a_period(sigma):
    x = (np.arange(4096) + 0.5) / 4096  # midpoints over one period
    _, grad = value_and_grad(activations.get("comb_round", sigma=sigma), x)
    assert grad.mean() == pytest.approx(1.0, abs=1e-6)


def test_comb_round_gradient_nearly_vanishes_at_the_integers():
    _, grad = value_and_grad(activations.get("comb_round", sigma=0.1), INTEGERS)
    np.testing.assert_allclose(grad, 2.97e-5, rtol=1e-2)  # 2 N(1/2; 0, 0.01)


@pytest.mark.parametrize("sigma", [0.9, 0.95, 5.0])
def test_comb_round_with_a_flat_comb_is_straight_through(sigma):
    # 0.9 still sums 12 Gaussians (float32 rounding of the sum: a few 1e-7), 0.95 is past
    # float32's flat point (0.92): both equal 1
    _, grad = value_and_grad(activations.get("comb_round", sigma=sigma), GRID)
    np.testing.assert_allclose(grad, 1.0, rtol=0, atol=1e-6)
    np.testing.assert_allclose(gaussian_comb(GRID, sigma), 1.0, rtol=0, atol=1e-6)
