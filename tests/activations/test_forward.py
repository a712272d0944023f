"""Forward values against independent numpy references, and the properties each should have."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab import activations

from .references import FORWARD, base_name
from .support import GRID, HALF_INTEGERS, INTEGERS, case_id, cases


@pytest.mark.parametrize("case", cases(), ids=case_id)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_forward_matches_numpy_reference(case, dtype):
    name, params = case
    x = GRID.astype(dtype)
    y = activations.get(name, **params)(x).numpy()
    assert y.dtype == dtype and y.shape == x.shape
    tolerance = 2e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y, FORWARD[base_name(name)](x, **params), rtol=0, atol=tolerance)


@pytest.mark.parametrize("name", ["hard_round", "ste_round", "comb_round"])
def test_round_forward_ties_to_even(name):
    y = activations.get(name)(HALF_INTEGERS).numpy()
    np.testing.assert_array_equal(y, [-2, -2, -0, 0, 2, 2])
    np.testing.assert_array_equal(y, np.round(HALF_INTEGERS))


@pytest.mark.parametrize(
    "case", cases(["identity", "sigmoid_round", "sine_round", "soft_round"]), ids=case_id
)
def test_smooth_surrogates_are_exactly_n_plus_half_at_half_integers(case):
    name, params = case
    np.testing.assert_array_equal(activations.get(name, **params)(HALF_INTEGERS), HALF_INTEGERS)


@pytest.mark.parametrize(
    "case",
    cases(["hard_round", "ste_round", "comb_round", "sine_round", "soft_round"]),
    ids=case_id,
)
def test_rounding_surrogates_are_exact_at_integers(case):
    name, params = case
    np.testing.assert_array_equal(activations.get(name, **params)(INTEGERS), INTEGERS)


def _shifted_pairs(name):
    """Dyadic points x, so that x + 1 is exact; ties left out for round, whose half-to-even
    rule is not shift-equivariant (round(0.5) + 1 = 1 but round(1.5) = 2)."""
    x = np.arange(-3, 2 + 1 / 64, 1 / 64, dtype=np.float32)
    if name in ("hard_round", "ste_round", "comb_round"):
        x = x[np.mod(x, 1) != 0.5]
    return x, x + 1


@pytest.mark.parametrize("case", [c for c in cases() if "spiky" not in c[0]], ids=case_id)
def test_shift_by_one_adds_one(case):
    name, params = case
    x, shifted = _shifted_pairs(name)
    fn = activations.get(name, **params)
    np.testing.assert_allclose(fn(shifted).numpy() - 1, fn(x).numpy(), rtol=0, atol=4e-7)


@pytest.mark.parametrize("name", ["spiky", "spiky_np"])
def test_spiky_is_periodic_not_rounding(name):
    x, shifted = _shifted_pairs(name)
    fn = activations.get(name)
    np.testing.assert_allclose(fn(shifted).numpy(), fn(x).numpy(), rtol=0, atol=1e-6)


@pytest.mark.parametrize("case", [c for c in cases() if "spiky" not in c[0]], ids=case_id)
def test_rounding_surrogates_are_non_decreasing(case):
    name, params = case
    y = activations.get(name, **params)(GRID).numpy()
    assert np.all(np.diff(y) >= 0)


@pytest.mark.parametrize("width", [0.1, 0.5, 1.0])
def test_sine_round_is_continuous(width):
    # slope at most pi / (2 w): on a fine grid no step may exceed it, window edges included
    x = np.arange(-2, 2, 2**-12, dtype=np.float64)
    y = activations.sine_round(x, width=width).numpy()
    assert np.max(np.abs(np.diff(y))) <= np.pi / (2 * width) * 2**-12 * (1 + 1e-9)


@pytest.mark.parametrize("alpha", [0.5, 5.0, 50.0])
def test_soft_round_is_continuous(alpha):
    # slope at most alpha / (2 tanh(alpha / 2)), at the half-integers
    x = np.arange(-2, 2, 2**-12, dtype=np.float64)
    y = activations.soft_round(x, alpha=alpha).numpy()
    max_slope = alpha / (2 * np.tanh(alpha / 2))
    assert np.max(np.abs(np.diff(y))) <= max_slope * 2**-12 * (1 + 1e-9)


@pytest.mark.parametrize("steepness", [5.0, 10.0])
def test_sigmoid_round_jumps_at_integers_by_twice_sigmoid_of_minus_half_steepness(steepness):
    below = activations.sigmoid_round(INTEGERS.astype(np.float64) - 1e-9, steepness).numpy()
    at = activations.sigmoid_round(INTEGERS.astype(np.float64), steepness).numpy()
    jump = 2 / (1 + np.exp(steepness / 2))
    np.testing.assert_allclose(at - below, jump, rtol=1e-6)
    assert jump == pytest.approx({5.0: 0.1517, 10.0: 0.0134}[steepness], abs=1e-4)


@pytest.mark.parametrize("width", [0.1, 0.5, 1.0])
def test_sine_round_is_exactly_round_outside_its_window(width):
    outside = GRID[np.abs(np.mod(GRID, 1) - 0.5) >= width / 2]
    np.testing.assert_array_equal(activations.sine_round(outside, width), np.round(outside))


def test_integer_tensors_are_rejected():
    with pytest.raises(
        ValueError, match=r"x must be a floating-point tensor. Received: x.dtype=int32"
    ):
        activations.get("ste_round")(np.array([1, 2], np.int32))
