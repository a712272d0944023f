"""The traced inference every engine scores through, against Keras' own eager call: equal up to
float32 rounding (TensorFlow may fuse a graph's ops), and the same integers out."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from roundlab import activations
from roundlab.engine import evaluation

from .support import APPROACHES, labelled, network, setup


def _eager(model, x: np.ndarray, batch: int) -> np.ndarray:
    """Keras' own eager call, batch by batch."""
    return np.concatenate(
        [np.asarray(model(x[i : i + batch], training=False)) for i in range(0, len(x), batch)]
    )


def _eager_zero_grad_fraction(net, approach, x, y) -> float:
    """The fraction by hand: one eager tape over every training row."""
    z = tf.convert_to_tensor(np.asarray(net.pre_activation(x, training=False)))
    with tf.GradientTape() as tape:
        tape.watch(z)
        out = z
        for layer in approach.head:
            out = layer(out)
        loss = tf.reduce_sum(approach.loss(y, out))
    grad = tape.gradient(loss, z)
    if grad is None:
        return 1.0
    return float(np.mean(np.all(grad.numpy() == 0, axis=-1)))


@pytest.mark.parametrize("name", sorted(APPROACHES))
def test_traced_forward_and_zero_gradient_equal_the_eager_ones(name, data):
    x_train, y_train, x_val, _ = data
    cfg, approach = setup(name, y_train)
    net = network(cfg, approach, 3)
    # batches smaller than the rows, so a partial last batch is traced too
    for x in (x_train, x_val):
        traced = evaluation.inference(net, batch=32)(x)
        eager = _eager(net.model, x, batch=32)
        np.testing.assert_allclose(traced, eager, rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(approach.decode(traced), approach.decode(eager))
        pre = evaluation.inference(net, pre_activation=True)(x)
        eager_pre = np.asarray(net.pre_activation(x, training=False))
        np.testing.assert_allclose(pre, eager_pre, rtol=1e-6, atol=1e-6)
    fraction = evaluation.zero_grad_fraction(net, approach, x_train, y_train, batch=32)
    assert fraction == _eager_zero_grad_fraction(net, approach, x_train, y_train)


def test_a_member_with_another_parameter_gets_its_own_graph_not_the_first_ones(data):
    """A group loads each member's parameter onto the head's layer (not a weight): the graph
    traced for steepness 1 must not answer for steepness 20."""
    x_train, y_train, *_ = data
    cfg, approach = setup("soft_round", y_train)
    net = network(cfg, approach, 0)
    outputs = {}
    for alpha in (1.0, 20.0, 1.0):
        approach.activation = activations.get("soft_round", alpha=alpha)
        for layer in approach.head:
            layer.activation = approach.activation
        outputs.setdefault(alpha, []).append(evaluation.inference(net)(x_train))
        fraction = evaluation.zero_grad_fraction(net, approach, x_train, y_train)
        assert fraction == _eager_zero_grad_fraction(net, approach, x_train, y_train)
        eager = np.asarray(net.model(x_train))
        np.testing.assert_allclose(outputs[alpha][-1], eager, rtol=1e-6, atol=1e-6)
    assert not np.array_equal(outputs[1.0][0], outputs[20.0][0])
    np.testing.assert_array_equal(outputs[1.0][0], outputs[1.0][1])  # its graph, reused
    assert len([k for k in net.graphs if k[0] == "forward"]) == 2
    assert len([k for k in net.graphs if k[0] == "pre_activation"]) == 1


def test_new_weights_need_no_new_graph(data):
    x_train, y_train, *_ = data
    cfg, approach = setup("classification", y_train)
    net = network(cfg, approach, 0)
    first = evaluation.inference(net)(x_train)
    net.model.set_weights(network(cfg, approach, 1).model.get_weights())
    second = evaluation.inference(net)(x_train)
    assert not np.array_equal(first, second)
    np.testing.assert_allclose(second, np.asarray(net.model(x_train)), rtol=1e-6, atol=1e-6)
    assert len(net.graphs) == 1


def test_a_float64_input_is_read_as_the_float32_the_model_computes_in(data):
    x_train, y_train, *_ = data
    cfg, approach = setup("regression", y_train)
    net = network(cfg, approach, 0)
    x64 = labelled(50, 9)[0].astype(np.float64)
    np.testing.assert_array_equal(
        evaluation.inference(net)(x64), evaluation.inference(net)(x64.astype(np.float32))
    )
