"""roundlab's optimizers skip the one-replica all-reduce of the gradients: the same updates to
the bit, without the traced all-reduce that kept every job's variables alive in a sweep's
process (bench/memory.py measures the memory)."""

import keras
import numpy as np
import pytest

from roundlab.engine import models


def _fit(optimizer: keras.optimizers.Optimizer, x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    keras.utils.set_random_seed(3)
    inputs = keras.Input((x.shape[1],))
    hidden = keras.layers.Dense(16, activation="relu")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(1)(hidden))
    model.compile(optimizer=optimizer, loss="mse")
    model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0)
    return model.get_weights()


@pytest.mark.parametrize("name", ["adam", "sgd", "rmsprop"])
def test_updates_without_the_all_reduce_equal_keras_own_to_the_bit(name, data):
    x, y = data[0], data[1].reshape(-1, 1)
    ours = _fit(models.optimizer(name, 0.01), x, y)
    keras_own = keras.optimizers.get({"class_name": name, "config": {"learning_rate": 0.01}})
    theirs = _fit(keras_own, x, y)
    assert all(np.array_equal(a, b) for a, b in zip(ours, theirs, strict=True))
    assert any(not np.array_equal(a, b) for a, b in zip(ours, _initial(x), strict=True))


def _initial(x: np.ndarray) -> list[np.ndarray]:
    keras.utils.set_random_seed(3)
    inputs = keras.Input((x.shape[1],))
    hidden = keras.layers.Dense(16, activation="relu")(inputs)
    return keras.Model(inputs, keras.layers.Dense(1)(hidden)).get_weights()


def test_the_skipped_all_reduce_is_the_one_keras_defines():
    # A Keras upgrade that renames the method would silently bring the leak back.
    assert callable(keras.optimizers.Adam._all_reduce_sum_gradients)
    opt = models.optimizer("adam", 0.01)
    pairs = [("g", "v"), (None, "w")]
    assert opt._all_reduce_sum_gradients(iter(pairs)) == pairs
