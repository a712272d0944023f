"""One member trained by the engine is Keras ``fit`` of its build_mlp network: same loss and
metrics per epoch, same history keys, same final weights.

Full-batch training (batch_size >= n) takes shuffling out of the comparison. Compared to float32
tolerance, not bitwise: Keras runs a 2-d matmul per layer where the engine runs a batched one,
and sums the batch in another order.
"""

from __future__ import annotations

import numpy as np
import pytest

from roundlab.engine import Member, train_members

from .support import APPROACHES, HIDDEN, network, setup

EPOCHS = 5
LEARNING_RATE = 0.01


def keras_fit(net, approach, data) -> dict[str, list[float]]:
    import keras

    x_train, y_train, x_val, y_val = data
    net.model.compile(
        optimizer=keras.optimizers.get(
            {"class_name": "adam", "config": {"learning_rate": LEARNING_RATE}}
        ),
        loss=approach.loss,
        metrics=approach.metrics(),
        jit_compile=False,
    )
    return net.model.fit(
        x_train,
        y_train,
        validation_data=(x_val, y_val),
        batch_size=len(x_train),
        epochs=EPOCHS,
        shuffle=False,
        verbose=0,
    ).history


@pytest.mark.parametrize("name", sorted(APPROACHES))
def test_one_member_trains_as_keras_fit(name, data):
    cfg, approach = setup(name, data[1])
    net = network(cfg, approach, 21)
    member = Member(21, net.model.get_weights())
    outcome = train_members(
        approach,
        [member],
        *data,
        hidden_sizes=HIDDEN,
        batch_size=len(data[0]),
        epochs=EPOCHS,
        learning_rate=LEARNING_RATE,
    )[0]
    expected = keras_fit(net, approach, data)
    assert sorted(outcome.history) == sorted(expected)
    for key, values in expected.items():
        np.testing.assert_allclose(outcome.history[key], values, rtol=1e-5, atol=1e-6, err_msg=key)
    for got, want in zip(outcome.weights, net.model.get_weights(), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
