"""RoundingActivation: Keras layer that serializes with its parameter and declares XLA support."""

from __future__ import annotations

import keras
import numpy as np
import pytest

from roundlab import activations
from roundlab.activations import RoundingActivation

from .support import GRID, case_id, cases

CASES = [(name, params) for name, params in cases() if not params] + [
    ("sigmoid_round", {"steepness": 7.5}),
    ("sine_round", {"width": 0.3}),
    ("soft_round", {"alpha": 2.5}),
    ("comb_round", {"sigma": 0.2}),
    ("sigmoid_round_np", {"steepness": 3.0}),
    ("sine_round_np", {"width": 0.7}),
]


def _model(name, params):
    inputs = keras.Input((4,))
    hidden = keras.layers.Dense(3, kernel_initializer=keras.initializers.RandomNormal(seed=1))(
        inputs
    )
    outputs = RoundingActivation(name, **params, name="rounding")(hidden * 3)
    return keras.Model(inputs, outputs)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_model_saved_to_keras_file_loads_back_with_identical_outputs(case, tmp_path):
    name, params = case
    model = _model(name, params)
    x = np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32)
    path = tmp_path / "model.keras"
    model.save(path)
    loaded = keras.saving.load_model(path)
    layer = loaded.get_layer("rounding")
    assert isinstance(layer, RoundingActivation)
    assert (layer.activation.name, layer.activation.params) == (name, {**params})
    assert layer.supports_jit is not activations.spec(name).numpy_backed
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_get_config_returns_every_argument(case):
    name, params = case
    layer = RoundingActivation(name, **params, name="out", dtype="float64")
    config = layer.get_config()
    spec = activations.spec(name)
    expected = {
        "activation": name,
        **({spec.param: params.get(spec.param, spec.default)} if spec.param else {}),
    }
    assert {k: config[k] for k in expected} == expected
    assert config["name"] == "out"
    clone = RoundingActivation.from_config(config)
    assert clone.get_config() == config


def test_layer_applies_the_activation():
    layer = RoundingActivation("sine_round", width=0.25)
    np.testing.assert_array_equal(layer(GRID), activations.sine_round(GRID, width=0.25))
    assert layer.compute_output_shape((None, 5)) == (None, 5)


def test_bad_parameter_fails_at_layer_construction():
    with pytest.raises(ValueError, match=r"width must be in \(0, 1\]. Received: width=1.5"):
        RoundingActivation("sine_round", width=1.5)
    with pytest.raises(ValueError, match=r"sine_round takes only 'width'. Received: alpha=1.0"):
        RoundingActivation("sine_round", alpha=1.0)
    with pytest.raises(ValueError, match="Received: name='nope'"):
        RoundingActivation("nope")


def test_tensorflow_layer_lets_keras_compile_with_xla():
    model = _model("soft_round", {"alpha": 2.0})
    model.compile(optimizer="sgd", loss="mse", jit_compile=True)
    assert model.jit_compile is True


def test_keras_fit_through_hard_round_fails_for_lack_of_gradients():
    model = _model("hard_round", {})
    model.compile(optimizer="sgd", loss="mse")
    x = np.ones((8, 4), np.float32)
    with pytest.raises(ValueError, match="No gradients provided"):
        model.fit(x, np.ones((8, 3), np.float32), epochs=1, verbose=0)
