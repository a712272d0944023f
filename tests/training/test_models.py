import numpy as np
import pytest

from roundlab import approaches
from roundlab.engine import models


@pytest.fixture
def rounding_cfg(compose):
    return compose("approach=rounding", "activation=sigmoid_round")


def test_output_head_stays_float32_under_mixed_precision(rounding_cfg):
    import keras

    keras.config.set_dtype_policy("mixed_float16")
    try:
        approach = approaches.build(rounding_cfg, np.arange(10))
        net = models.build_mlp(4, rounding_cfg.model, approach)
        assert net.model.get_layer("hidden_0").compute_dtype == "float16"
        assert net.model.get_layer("pre_activation").compute_dtype == "float32"
        assert all(layer.compute_dtype == "float32" for layer in net.head)
        assert net.model(np.zeros((2, 4), np.float32)).dtype == "float32"
    finally:
        keras.config.set_dtype_policy("float32")


def test_output_bias_starts_at_the_training_label_mean(rounding_cfg):
    approach = approaches.build(rounding_cfg, np.array([100, 200, 300]))
    net = models.build_mlp(3, rounding_cfg.model, approach)
    bias = net.model.get_layer("pre_activation").bias.numpy()
    assert bias.tolist() == [200.0]


def test_classification_has_one_logit_per_label_in_the_training_range(compose):
    cfg = compose("approach=classification")
    approach = approaches.build(cfg, np.array([3, 5, 7]))
    assert approach.units == 5
    logits = np.array([[0.0, 0.0, 9.0, 0.0, 0.0], [9.0, 0.0, 0.0, 0.0, 0.0]])
    assert approach.decode(logits).tolist() == [5, 3]


@pytest.mark.parametrize(
    ("hidden", "output", "jit"),
    [
        ("relu", "sigmoid_round", True),
        ("relu", "sigmoid_round_np", False),
        ("spiky_np", "soft_round", False),
    ],
)
def test_xla_is_possible_only_without_numpy_backed_layers(compose, hidden, output, jit):
    cfg = compose("approach=rounding", f"activation={output}", f"model.hidden_activation={hidden}")
    net = models.build_mlp(3, cfg.model, approaches.build(cfg, np.arange(4)))
    assert net.supports_jit is jit
