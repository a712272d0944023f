"""The Keras layer: any registered activation, serializable with its parameter."""

from __future__ import annotations

from typing import Any

import keras

from roundlab.activations.catalogue import PARAMETER_NAMES
from roundlab.activations.registry import get


@keras.saving.register_keras_serializable(package="roundlab")
class RoundingActivation(keras.layers.Layer):
    """Applies ``roundlab.activations.get(activation, **params)``.

    ``RoundingActivation("sine_round", width=0.2)``. Keyword arguments that are activation
    parameters (steepness, width, alpha, sigma) go to the activation, and are checked at
    construction; the rest (name, dtype, ...) go to ``keras.layers.Layer``. ``get_config``
    returns the activation name and its parameter (default filled in), so a model saved to
    ``.keras`` loads back with the same activation. Layers backed by numpy set
    ``supports_jit = False``, which keeps Keras from XLA-compiling a model that contains them.
    """

    def __init__(self, activation: str, **kwargs: Any):
        params = {key: kwargs.pop(key) for key in list(kwargs) if key in PARAMETER_NAMES}
        super().__init__(**kwargs)
        self.activation = get(activation, **params)
        self.supports_jit = self.activation.supports_jit

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        return {**config, "activation": self.activation.name, **self.activation.params}
