"""The stacked optimizer steps are Keras's own, member by member, at each member's rate."""

from __future__ import annotations

import keras
import numpy as np
import pytest
import tensorflow as tf

from roundlab.engine.stacked_optimizers import stacked_optimizer

RATES = (0.001, 0.03, 0.3)


def keras_steps(name: str, rate: float, start: np.ndarray, gradients: list[np.ndarray]):
    """The weights after Keras optimizer ``name`` at ``rate`` applies ``gradients``."""
    variable = keras.Variable(start)
    opt = keras.optimizers.get({"class_name": name, "config": {"learning_rate": rate}})
    for g in gradients:
        opt.apply([tf.constant(g)], [variable])
    return variable.numpy()


def stacked_steps(name: str, start: np.ndarray, gradients: list[np.ndarray]) -> np.ndarray:
    stepper = stacked_optimizer(name)
    theta = tf.Variable(start)
    slots = [tf.Variable(tf.zeros_like(start)) for _ in range(stepper.slots)]
    rates = tf.constant(np.asarray(RATES, dtype=np.float32).reshape(-1, 1))
    for i, g in enumerate(gradients, start=1):
        stepper.step(theta, slots, tf.constant(g), rates, tf.constant(float(i)))
    return theta.numpy()


@pytest.mark.parametrize("name", ["adam", "sgd", "rmsprop"])
def test_each_members_step_is_kerass_step_at_its_rate_to_the_bit(name):
    rng = np.random.default_rng(4)
    start = rng.normal(size=(len(RATES), 32)).astype(np.float32)
    # gradients of every sign and scale, zeros included
    gradients = [
        (rng.normal(size=start.shape) * 10.0 ** rng.integers(-6, 2, size=start.shape)).astype(
            np.float32
        )
        * (rng.random(start.shape) > 0.1)
        for _ in range(25)
    ]
    got = stacked_steps(name, start, gradients)
    for m, rate in enumerate(RATES):
        expected = keras_steps(name, rate, start[m], [g[m] for g in gradients])
        np.testing.assert_array_equal(got[m], expected)
    assert not np.array_equal(got, start)


@pytest.mark.parametrize("name", ["adamw", "nadam", "adagrad"])
def test_an_optimizer_without_a_stacked_step_is_refused_by_name(name):
    with pytest.raises(ValueError, match=rf"adam, sgd or rmsprop.*Received: optimizer='{name}'"):
        stacked_optimizer(name)
