"""The Keras layers of the approaches' heads, saved with a run's model: registered as
``roundlab>...`` so that ``keras.saving.load_model`` finds them after ``import roundlab``
(:mod:`roundlab.serving.keras_objects`). Only Keras and numpy here: the registration runs
while Keras
finishes importing, before the approach modules could be imported."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np


@keras.saving.register_keras_serializable(package="roundlab")
class OffsetLogits(keras.layers.Layer):
    """CORAL's shared score plus K−1 trainable biases: ``(B, 1) -> (B, K−1)``, ``z + b``.

    ``stacked`` is the same on a leading member axis (roundlab.engine.stacked_mlp): scores
    (M, B, 1) and biases (M, K−1), added by the stacked program's ``add_bias``."""

    def __init__(self, initial: Any, **kwargs: Any):
        super().__init__(**kwargs)
        self.initial = [float(v) for v in np.reshape(initial, (-1,))]
        self.weight_shapes = ((len(self.initial),),)

    def build(self, input_shape: Any) -> None:
        self.offsets = self.add_weight(
            shape=self.weight_shapes[0],
            initializer=keras.initializers.Constant(np.asarray(self.initial)),
            name="offsets",
        )

    def call(self, z: Any) -> Any:
        return z + self.offsets

    @staticmethod
    def stacked(z: Any, offsets: Any, *, add_bias: Any) -> Any:
        return add_bias(z, offsets)

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "initial": self.initial}
