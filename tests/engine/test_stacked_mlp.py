"""The stacked forward pass is each member's build_mlp network, and what cannot be stacked is
refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab.engine import Member, train_members
from roundlab.engine.stacked_mlp import forward, hidden_activation, layout, output_head

from .support import APPROACHES, HIDDEN, network, setup


@pytest.mark.parametrize("name", sorted(APPROACHES))
def test_stacked_forward_equals_each_members_build_mlp_output(name, data):
    import tensorflow as tf

    x_train, y_train, x_val, _ = data
    cfg, approach = setup(name, y_train)
    nets = [network(cfg, approach, seed) for seed in (3, 4, 5)]
    members = [
        Member(seed, net.model.get_weights()) for seed, net in zip((3, 4, 5), nets, strict=True)
    ]
    lay = layout(x_train.shape[1], HIDDEN, approach)
    head, knobs = output_head(approach, [None] * 3)
    theta = tf.constant(lay.rows(members))
    relu = hidden_activation("relu", None)
    outputs = forward(lay, theta, tf.constant(x_val[None]), relu, head, knobs).numpy()
    for m, net in enumerate(nets):
        np.testing.assert_allclose(outputs[m], net.model(x_val).numpy(), rtol=1e-6, atol=1e-6)


def test_each_member_gets_its_own_knob(data):
    import tensorflow as tf

    _, y_train, x_val, _ = data
    alphas = (0.5, 3.0, 12.0)
    nets, approaches_ = [], []
    for alpha in alphas:
        cfg, approach = setup("soft_round", y_train, f"activation.alpha={alpha}")
        nets.append(network(cfg, approach, 7))
        approaches_.append(approach)
    weights = nets[0].model.get_weights()
    members = [Member(7, weights, knob=alpha) for alpha in alphas]
    lay = layout(x_val.shape[1], HIDDEN, approaches_[0])
    head, knobs = output_head(approaches_[0], alphas)
    theta = tf.constant(lay.rows(members))
    relu = hidden_activation("relu", None)
    outputs = forward(lay, theta, tf.constant(x_val[None]), relu, head, knobs).numpy()
    for m, net in enumerate(nets):
        np.testing.assert_allclose(outputs[m], net.model(x_val).numpy(), rtol=1e-6, atol=1e-6)
    assert not np.allclose(outputs[0], outputs[2])


def _train(approach, weights, data, **kwargs):
    return train_members(approach, [Member(0, weights)], *data, epochs=1, **kwargs)


def test_dropout_is_refused(data):
    cfg, approach = setup("regression", data[1])
    weights = network(cfg, approach, 0).model.get_weights()
    with pytest.raises(ValueError, match=r"dropout cannot be vectorised.*Received: dropout=0.1"):
        _train(approach, weights, data, hidden_sizes=HIDDEN, dropout=0.1)


def test_numpy_backed_output_activation_is_refused(data):
    cfg, approach = setup("soft_round", data[1], "activation=sigmoid_round_np")
    weights = network(cfg, approach, 0).model.get_weights()
    with pytest.raises(ValueError, match=r"cannot be vectorised.*activation='sigmoid_round_np'"):
        _train(approach, weights, data, hidden_sizes=HIDDEN)


def test_numpy_backed_hidden_activation_is_refused(data):
    cfg, approach = setup("regression", data[1])
    weights = network(cfg, approach, 0).model.get_weights()
    with pytest.raises(ValueError, match=r"cannot be vectorised.*hidden_activation='spiky_np'"):
        _train(approach, weights, data, hidden_sizes=HIDDEN, hidden_activation="spiky_np")


def test_knob_on_an_activation_without_parameter_is_refused(data):
    cfg, approach = setup("ste_round", data[1])
    weights = network(cfg, approach, 0).model.get_weights()
    with pytest.raises(ValueError, match=r"ste_round takes no parameter. Received: knobs=\[2.0\]"):
        train_members(approach, [Member(0, weights, knob=2.0)], *data, hidden_sizes=HIDDEN)


def test_weights_of_another_shape_are_refused(data):
    cfg, approach = setup("regression", data[1])
    weights = network(cfg, approach, 0).model.get_weights()
    with pytest.raises(ValueError, match=r"shapes of build_mlp's weights.*members\[0\]"):
        _train(approach, weights, data, hidden_sizes=[8, 9])
