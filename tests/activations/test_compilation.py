"""Every TensorFlow activation compiles with XLA and gives what it gives eagerly; the custom
gradients survive tf.function and keyword calls."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from roundlab import activations

from .support import GRID, case_id, cases, numpy_names, tf_names, value_and_grad


def _forward_backward(fn):
    def step(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        # hard_round has no gradient: ZERO lets it compile and run forward all the same
        return y, tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)

    return step


@pytest.mark.parametrize("case", cases(tf_names()), ids=case_id)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_xla_compiled_matches_eager(case, dtype):
    name, params = case
    fn = activations.get(name, **params)
    assert fn.supports_jit
    x = tf.constant(GRID.astype(dtype))
    # jit_compile=True raises on any op XLA cannot compile (see the numpy twins' test)
    y_xla, grad_xla = tf.function(_forward_backward(fn), jit_compile=True)(x)
    y, grad = _forward_backward(fn)(x)
    np.testing.assert_allclose(y_xla.numpy(), y.numpy(), rtol=0, atol=1e-6)
    scale = max(1.0, np.abs(grad.numpy()).max())
    np.testing.assert_allclose(grad_xla.numpy(), grad.numpy(), rtol=0, atol=1e-6 * scale)


def test_hard_round_missing_gradient_is_none_in_tf_function_too():
    @tf.function(jit_compile=True)
    def gradient(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = activations.hard_round(x)
        return tape.gradient(y, x)

    assert gradient(tf.constant(GRID)) is None


@pytest.mark.parametrize("name", activations.names())
def test_custom_gradient_survives_a_keyword_call(name):
    # tf.custom_gradient ignores the custom gradient when its function gets x by keyword;
    # the public functions must not pass that on to their callers
    spec = activations.spec(name)
    params = {spec.param: spec.default} if spec.param else {}
    _, by_position = value_and_grad(lambda x: spec.function(x, **params), GRID)
    _, by_keyword = value_and_grad(lambda x: spec.function(x=x, **params), GRID)
    if by_position is None:
        assert by_keyword is None
    else:
        np.testing.assert_array_equal(by_keyword, by_position)


@pytest.mark.parametrize("name", ["ste_round", "comb_round", *numpy_names()])
def test_custom_gradients_work_inside_tf_function(name):
    fn = activations.get(name)
    _, eager = value_and_grad(fn, GRID)
    graph = tf.function(_forward_backward(fn))
    # graph optimizations may round differently in float32
    scale = np.abs(eager).max()
    np.testing.assert_allclose(graph(tf.constant(GRID))[1].numpy(), eager, atol=1e-6 * scale)
