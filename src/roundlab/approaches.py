"""The three ways to predict an integer: what the output head is, what it is trained with, and
how its output becomes an integer.

- classification: ``K = hi - lo + 1`` logits over the training label range ``[lo, hi]``,
  softmax cross-entropy, readout ``argmax + lo``. By construction it can only predict labels in
  ``[lo, hi]``; a validation label outside that range is clipped to the nearest class for the
  loss only (the metrics compare against the true label).
- regression: one linear unit trained with MSE or Huber, read out by rounding (half to even,
  see roundlab.metrics).
- rounding: one linear unit followed by a rounding activation, trained with MSE, read out by
  rounding.

Every approach receives the raw integer labels as targets: they are never rescaled, because
the rounding activations act on the label's integer grid. The linear unit's bias starts at the
training-label mean so that regression and rounding start from the constant predictor even when
labels are large (diabetes: 25..346) instead of spending epochs walking the bias there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import keras
import numpy as np
from keras import ops

from roundlab import activations
from roundlab.device import float32_policy
from roundlab.metrics import round_half_even


@dataclass
class Approach:
    """An output head: ``units`` pre-activation outputs, then ``head`` layers."""

    name: str
    units: int
    bias: float
    loss: Callable[[Any, Any], Any]  # per-example loss of (labels, model output)
    decode_tf: Callable[[Any], Any]  # model output -> integer predictions (float tensor)
    decode: Callable[[np.ndarray], np.ndarray]  # same in numpy, int64
    head: list[keras.layers.Layer] = field(default_factory=list)
    activation: Any = None  # the output rounding activation (roundlab.activations.get)

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


def build(cfg: Any, y_train: np.ndarray) -> Approach:
    """The approach named by ``cfg.approach.name``, fitted to the training labels' range."""
    name = cfg.approach.name
    if name == "classification":
        return _classification(y_train)
    if name == "regression":
        loss = _huber(cfg.trainer.huber_delta) if cfg.trainer.loss == "huber" else _mse
        return _scalar(name, y_train, loss)
    if name == "rounding":
        act = activations.get(cfg.activation.name, **_params(cfg.activation))
        # Built under a float32 policy: with mixed precision a float16 staircase would lose the
        # integer grid above 2048, and the loss must see float32.
        with float32_policy():
            layer = activations.RoundingActivation(act.name, **act.params)
        approach = _scalar(name, y_train, _mse)
        approach.head = [layer]
        approach.activation = act
        return approach
    raise ValueError(
        f"approach.name must be one of classification, regression, rounding. "
        f"Received: approach.name={name!r}"
    )


def _classification(y_train: np.ndarray) -> Approach:
    lo, hi = int(np.min(y_train)), int(np.max(y_train))
    k = hi - lo + 1

    def loss(y_true: Any, logits: Any) -> Any:
        labels = ops.clip(ops.cast(ops.reshape(y_true, (-1,)), "int32") - lo, 0, k - 1)
        return ops.sparse_categorical_crossentropy(labels, logits, from_logits=True)

    return Approach(
        name="classification",
        units=k,
        bias=0.0,
        loss=loss,
        decode_tf=lambda out: ops.cast(ops.argmax(out, axis=-1) + lo, "float32"),
        decode=lambda out: np.argmax(out, axis=-1).astype(np.int64) + lo,
    )


def _scalar(name: str, y_train: np.ndarray, loss: Callable[[Any, Any], Any]) -> Approach:
    return Approach(
        name=name,
        units=1,
        bias=float(np.mean(y_train)),
        loss=loss,
        decode_tf=lambda out: ops.round(_flat(out)),
        decode=lambda out: round_half_even(np.reshape(out, (-1,))),
    )


def _mse(y_true: Any, y_out: Any) -> Any:
    return ops.square(_flat(y_out) - ops.cast(ops.reshape(y_true, (-1,)), "float32"))


def _huber(delta: float) -> Callable[[Any, Any], Any]:
    def loss(y_true: Any, y_out: Any) -> Any:
        err = ops.abs(_flat(y_out) - ops.cast(ops.reshape(y_true, (-1,)), "float32"))
        quadratic = ops.minimum(err, delta)
        return 0.5 * ops.square(quadratic) + delta * (err - quadratic)

    return loss


def _flat(y_out: Any) -> Any:
    return ops.reshape(ops.cast(y_out, "float32"), (-1,))


def _params(node: Any) -> dict[str, float]:
    return {k: float(v) for k, v in node.items() if k != "name"}
