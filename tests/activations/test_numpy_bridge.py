"""numpy_activation (the custom-activation Q&A's recipe in TF2) and the numpy twins made with it."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from roundlab import activations
from roundlab.activations import numpy_activation

from .references import base_name, np_d_spiky, np_spiky
from .support import case_id, cases, numpy_names, value_and_grad

QA_X = np.array([0.2, 0.7, 1.2, 1.7], np.float32)


@pytest.mark.parametrize(
    "fn",
    [
        numpy_activation(np_spiky, np_d_spiky),  # the Q&A's np.vectorize functions, as posted
        activations.spiky_np,
        activations.spiky,
    ],
    ids=["qa_numpy", "spiky_np", "spiky_tf_ops"],
)
def test_spiky_gives_the_custom_activation_qas_values_and_gradient(fn):
    y, grad = value_and_grad(fn, QA_X)
    np.testing.assert_allclose(y, [0.2, 0.0, 0.2, 0.0], atol=1e-6)
    np.testing.assert_array_equal(grad, [1.0, 0.0, 1.0, 0.0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (5,), (2, 3, 4)])
def test_numpy_activation_keeps_dtype_and_shape(dtype, shape):
    # fn computes in float64 whatever it gets: the bridge casts back to the input's dtype
    fn = numpy_activation(lambda a: a.astype(np.float64) * 3, lambda a: np.full(a.shape, 3.0))
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    y, grad = value_and_grad(fn, x)
    assert y.dtype == dtype and y.shape == shape
    assert grad.dtype == dtype and grad.shape == shape
    np.testing.assert_array_equal(y, 3 * x)


def test_numpy_activation_keeps_unknown_batch_dims_in_tf_function():
    fn = activations.get("sine_round_np")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def forward_backward(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        grad = tape.gradient(y, x)
        assert y.shape.as_list() == [None, 3] and grad.shape.as_list() == [None, 3]
        return y, grad

    for batch in (1, 7):
        y, grad = forward_backward(tf.ones([batch, 3]) * 0.5)
        assert y.shape == (batch, 3) and grad.shape == (batch, 3)


def test_numpy_activation_gradient_is_grad_fn_times_upstream_not_autodiff():
    # a deliberately wrong derivative shows which one TensorFlow uses
    fn = numpy_activation(np.square, lambda a: np.full_like(a, 7.0), name="square")
    x = np.array([1.0, 2.0, -3.0], np.float32)
    upstream = np.array([1.0, 0.5, -2.0], np.float32)
    y, grad = value_and_grad(fn, x, upstream)
    np.testing.assert_array_equal(y, x**2)
    np.testing.assert_array_equal(grad, 7.0 * upstream)


def test_numpy_activation_names_its_function():
    assert numpy_activation(np.square, np.square).__name__ == "square"
    assert numpy_activation(lambda a: a, lambda a: a, name="my op").__name__ == "my_op"


@pytest.mark.parametrize("case", cases(numpy_names()), ids=case_id)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numpy_twin_agrees_with_its_tensorflow_version(case, dtype):
    name, params = case
    x = np.random.default_rng(0).uniform(-5, 5, 10_000).astype(dtype)
    y_np, grad_np = value_and_grad(activations.get(name, **params), x)
    y_tf, grad_tf = value_and_grad(activations.get(base_name(name), **params), x)
    tolerance = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y_np, y_tf, rtol=0, atol=tolerance)
    scale = max(1.0, np.abs(grad_tf).max())
    np.testing.assert_allclose(grad_np, grad_tf, rtol=0, atol=tolerance * scale)


@pytest.mark.parametrize("name", numpy_names())
def test_numpy_twins_cannot_be_xla_compiled_as_declared(name):
    activation = activations.get(name)
    assert activation.supports_jit is False
    with pytest.raises(tf.errors.InvalidArgumentError, match="PyFunc"):
        tf.function(jit_compile=True)(activation)(tf.constant([0.2, 0.7]))


def test_numpy_backed_layer_trains_in_keras_without_xla():
    model = keras.Sequential(
        [
            keras.Input((3,)),
            keras.layers.Dense(1),
            activations.RoundingActivation("sigmoid_round_np"),
        ]
    )
    with pytest.warns(UserWarning, match="doesn't support `jit_compile=True`"):
        model.compile(optimizer="sgd", loss="mse", jit_compile=True)
    assert model.jit_compile is False
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(32, 3)).astype(np.float32), rng.normal(size=(32, 1)).astype(np.float32)
    before = [w.numpy().copy() for w in model.trainable_weights]
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    assert any(
        not np.array_equal(b, w.numpy())
        for b, w in zip(before, model.trainable_weights, strict=True)
    )
    assert model.predict(x, verbose=0).shape == (32, 1)
