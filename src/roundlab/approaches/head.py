"""What every approach is made of: an output head, a per-example loss and an integer readout.

Every approach receives the raw integer labels as targets: they are never rescaled, because the
rounding activations act on the label's integer grid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import keras
import numpy as np
from keras import ops

from roundlab.metrics import round_half_even

Loss = Callable[[Any, Any], Any]  # per-example loss of (labels, model output)


@dataclass
class Approach:
    """An output head: ``units`` pre-activation outputs (biases starting at ``bias``, one value
    or one per unit), then the ``head`` layers; ``loss`` trains it, ``decode`` (numpy) and
    ``decode_tf`` (in-graph) turn its output into integers. ``readouts`` are further integer
    readouts recorded beside ``decode``'s (poisson: ``mode``), each scored as
    ``<name>_exact_match`` and ``<name>_mae`` (roundlab.engine.evaluation)."""

    name: str
    units: int
    bias: float | np.ndarray
    loss: Loss
    decode_tf: Callable[[Any], Any]  # model output -> integer predictions (float tensor)
    decode: Callable[[np.ndarray], np.ndarray]  # the same in numpy, int64
    head: list[keras.layers.Layer] = field(default_factory=list)
    activation: Any = None  # the output rounding activation (roundlab.activations.Activation)
    readouts: dict[str, Callable[[np.ndarray], np.ndarray]] = field(default_factory=dict)

    def metrics(self) -> list[keras.metrics.Metric]:
        """In-graph per-epoch exact_match, mae and within_one of the integer readout."""

        def error(y_true: Any, y_out: Any) -> Any:
            return self.decode_tf(y_out) - ops.cast(ops.reshape(y_true, (-1,)), "float32")

        return [
            keras.metrics.MeanMetricWrapper(
                lambda y, o: ops.cast(ops.equal(error(y, o), 0.0), "float32"), name="exact_match"
            ),
            keras.metrics.MeanMetricWrapper(lambda y, o: ops.abs(error(y, o)), name="mae"),
            keras.metrics.MeanMetricWrapper(
                lambda y, o: ops.cast(ops.abs(error(y, o)) <= 1.0, "float32"), name="within_one"
            ),
        ]


def scalar_head(name: str, y_train: np.ndarray, loss: Loss) -> Approach:
    """One linear unit read out by rounding half to even (roundlab.metrics). Its bias starts at
    the training-label mean, so training starts from the constant predictor even when labels are
    large (diabetes: 25..346) instead of spending epochs walking the bias there."""
    return Approach(
        name=name,
        units=1,
        bias=float(np.mean(y_train)),
        loss=loss,
        decode_tf=lambda out: ops.round(flat(out)),
        decode=lambda out: round_half_even(np.reshape(out, (-1,))),
    )


def mse(y_true: Any, y_out: Any) -> Any:
    return ops.square(flat(y_out) - labels(y_true))


def huber(delta: float) -> Loss:
    """Quadratic within ``delta`` of the label, linear beyond."""

    def loss(y_true: Any, y_out: Any) -> Any:
        err = ops.abs(flat(y_out) - labels(y_true))
        quadratic = ops.minimum(err, delta)
        return 0.5 * ops.square(quadratic) + delta * (err - quadratic)

    return loss


def labels(y_true: Any) -> Any:
    return ops.cast(ops.reshape(y_true, (-1,)), "float32")


def flat(y_out: Any) -> Any:
    return ops.reshape(ops.cast(y_out, "float32"), (-1,))
