"""A tensor parameter, one value per member (shape (M, 1, 1) against x of shape (M, B, 1)),
gives each member's slice the values and gradients of the call with that member's number."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from roundlab import activations

from .support import GRID, value_and_grad

# Per member; comb_round's values lie on both sides of float32's flat point (0.92) and need
# from 1 to 6 Gaussians on each side when called with a number.
MEMBER_VALUES = {
    "sigmoid_round": [0.5, 4.0, 10.0, 100.0],
    "sine_round": [0.125, 0.3, 0.5, 1.0],
    "soft_round": [0.0, 0.5, 4.0, 50.0],
    "comb_round": [0.01, 0.1, 0.25, 0.5, 0.9, 0.95, 3.0],
}


def _in_mode(function, compiled):
    return tf.function(function) if compiled else function


def _member_calls(name, values, dtype, compiled):
    """Values and gradients of one call with a tensor of ``values``, member by member on GRID."""
    param = activations.spec(name).param
    x = np.broadcast_to(GRID.astype(dtype)[None, :, None], (len(values), GRID.size, 1))
    tensor = tf.constant(np.asarray(values, np.float32).reshape(-1, 1, 1))

    def call(x):
        return activations.spec(name).function(x, **{param: tensor})

    return value_and_grad(_in_mode(call, compiled), x.copy())


@pytest.mark.parametrize("name", list(MEMBER_VALUES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tf_function"])
def test_each_member_slice_equals_the_call_with_its_number(name, dtype, compiled):
    values = MEMBER_VALUES[name]
    y, grad = _member_calls(name, values, dtype, compiled)
    assert y.shape == grad.shape == (len(values), GRID.size, 1)
    param = activations.spec(name).param
    # rtol: a broadcast op may take another vectorised path than a scalar one (an ulp), and the
    # comb sums more Gaussians for a tensor sigma; atol: y near 0 comes from cancellation
    atol = 8 * np.finfo(dtype).eps
    for member, value in enumerate(values):
        # the number the float32 tensor holds, so both calls see the same parameter
        scalar = activations.get(name, **{param: float(np.float32(value))})
        y_ref, grad_ref = value_and_grad(_in_mode(scalar, compiled), GRID.astype(dtype))
        np.testing.assert_allclose(y[member, :, 0], y_ref, rtol=1e-6, atol=atol)
        np.testing.assert_allclose(grad[member, :, 0], grad_ref, rtol=1e-6, atol=atol)


def test_tensor_sigma_past_the_flat_point_is_straight_through():
    _, grad = _member_calls("comb_round", [0.95, 3.0, 1e6], np.float32, compiled=False)
    np.testing.assert_array_equal(grad, 1.0)


@pytest.mark.parametrize("name", list(MEMBER_VALUES))
def test_tensor_parameter_is_not_checked_but_a_number_still_is(name):
    param = activations.spec(name).param
    function = activations.spec(name).function
    # a value outside the range passes as a tensor: the caller checks the numbers it came from
    function(GRID, **{param: tf.constant(-1.0)})
    with pytest.raises(ValueError, match=f"Received: {param}=-1.0"):
        function(GRID, **{param: -1.0})


@pytest.mark.parametrize("name", list(MEMBER_VALUES))
def test_scalar_tensor_parameter_equals_the_number_in_float64(name):
    # a float64 tensor of a value float32 cannot hold keeps all its digits
    param = activations.spec(name).param
    value = {"sine_round": 0.3, "soft_round": 0.3, "comb_round": 0.3}.get(name, 3.3)
    x = GRID.astype(np.float64)
    function = activations.spec(name).function
    y_tensor, grad_tensor = value_and_grad(
        lambda v: function(v, **{param: tf.constant(value, tf.float64)}), x
    )
    y_number, grad_number = value_and_grad(lambda v: function(v, **{param: value}), x)
    np.testing.assert_allclose(y_tensor, y_number, rtol=1e-15, atol=0)
    np.testing.assert_allclose(grad_tensor, grad_number, rtol=1e-14, atol=0)


@pytest.mark.parametrize("name", list(MEMBER_VALUES))
def test_tensor_parameter_compiles_with_xla_and_gives_the_eager_result(name):
    values = MEMBER_VALUES[name]
    param = activations.spec(name).param
    tensor = tf.constant(np.asarray(values, np.float32).reshape(-1, 1, 1))
    x = np.broadcast_to(GRID[None, :, None], (len(values), GRID.size, 1)).copy()

    def call(x):
        return activations.spec(name).function(x, **{param: tensor})

    def forward_backward(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = call(x)
        return y, tape.gradient(y, x)

    y_xla, grad_xla = tf.function(forward_backward, jit_compile=True)(tf.constant(x))
    y, grad = value_and_grad(call, x)
    np.testing.assert_allclose(y_xla.numpy(), y, rtol=0, atol=1e-6)
    np.testing.assert_allclose(grad_xla.numpy(), grad, rtol=0, atol=1e-6 * np.abs(grad).max())
