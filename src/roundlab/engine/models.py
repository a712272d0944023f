"""The network: an MLP body from ``cfg.model`` and the output head of the approach."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import keras
import tensorflow as tf

from roundlab import activations
from roundlab.approaches.head import Approach
from roundlab.device import float32_policy


@dataclass
class Network:
    """``model`` maps features to the approach's output; ``pre_activation`` maps them to the
    output unit before the head (what the zero-gradient fraction differentiates against)."""

    model: keras.Model
    pre_activation: keras.Model
    head: list[keras.layers.Layer]
    activation_names: tuple[str, ...]  # the hidden and output activations, for messages
    # Traced inference functions by what they compute (roundlab.engine.evaluation.inference):
    # a group's members are evaluated one after another in this one network.
    graphs: dict[tuple, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def supports_jit(self) -> bool:
        """False when a layer cannot be XLA-compiled (numpy-backed activations)."""
        return all(getattr(layer, "supports_jit", True) for layer in self.model.layers)


def build_mlp(n_features: int, model_cfg: Any, approach: Approach) -> Network:
    inputs = keras.Input((n_features,), name="features")
    h = inputs
    for i, size in enumerate(model_cfg.hidden_sizes):
        h = keras.layers.Dense(size, name=f"hidden_{i}")(h)
        h = _hidden_activation(model_cfg, i)(h)
        if model_cfg.dropout > 0:
            h = keras.layers.Dropout(model_cfg.dropout, name=f"dropout_{i}")(h)
    with float32_policy():
        z = keras.layers.Dense(
            approach.units,
            bias_initializer=keras.initializers.Constant(approach.bias),
            name="pre_activation",
        )(h)
    out = z
    for layer in approach.head:
        out = layer(out)
    model = keras.Model(inputs, out, name=f"mlp_{approach.name}")
    used = [model_cfg.hidden_activation] + (
        [approach.activation.name] if approach.activation else []
    )
    return Network(model, keras.Model(inputs, z), list(approach.head), tuple(used))


def optimizer(name: str, learning_rate: float) -> keras.optimizers.Optimizer:
    """The Keras optimizer ``name`` (adam, sgd, ...) at ``learning_rate``, for every engine.

    With one replica (no distribution strategy, as every roundlab run) the all-reduce of the
    gradients before each update is the identity, so it is skipped: TensorFlow's all-reduce of
    the default replica context, traced into a training step, keeps every trained model's
    variables alive until the process ends (the weights times 1 + optimizer slots, per job),
    and the jobs of a sweep share one process. The updates are the same to the bit.
    """
    opt = keras.optimizers.get({"class_name": name, "config": {"learning_rate": learning_rate}})
    if tf.distribute.get_strategy().num_replicas_in_sync == 1:
        opt._all_reduce_sum_gradients = _gradients_as_they_are
    return opt


def _gradients_as_they_are(grads_and_vars: Any) -> list[Any]:
    return list(grads_and_vars)


def _hidden_activation(model_cfg: Any, index: int) -> keras.layers.Layer:
    name = model_cfg.hidden_activation
    if name in activations.names():
        params = {k: float(v) for k, v in model_cfg.hidden_activation_params.items()}
        return activations.RoundingActivation(name, **params)
    return keras.layers.Activation(name, name=f"{name}_{index}")
