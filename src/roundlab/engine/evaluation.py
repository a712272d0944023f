"""What a trained network scored: integer metrics per split, the constant baseline, and the
fraction of training examples whose output gradient is exactly zero."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

from roundlab import activations, metrics
from roundlab.approaches.head import Approach
from roundlab.data import Dataset
from roundlab.engine.models import Network
from roundlab.engine.outcome import Fitted
from roundlab.results import RunResult

Forward = Callable[[np.ndarray], np.ndarray]  # features -> model output, inference mode


@dataclass(frozen=True)
class Standardization:
    """``z = (x - mean) / std`` per feature, in float32: the training split's mean and standard
    deviation (a constant feature keeps std 1 instead of turning into NaN); None when off."""

    mean: np.ndarray | None = None
    std: np.ndarray | None = None

    @classmethod
    def of(cls, train_x: np.ndarray, standardize: bool) -> Standardization:
        if not standardize:
            return cls()
        x = train_x.astype(np.float32)
        std = x.std(axis=0)
        std[std == 0] = 1.0
        return cls(x.mean(axis=0), std)

    def apply(self, x: np.ndarray) -> np.ndarray:
        x = x.astype(np.float32)
        return x if self.mean is None else (x - self.mean) / self.std


def standardized_features(dataset: Dataset, standardize: bool) -> dict[str, np.ndarray]:
    """Each split's features as float32, standardised with the training split's mean and std
    when ``standardize`` (:class:`Standardization`)."""
    scale = Standardization.of(dataset.train.x, standardize)
    return {name: scale.apply(split.x) for name, split in dataset.splits.items()}


def labels(dataset: Dataset) -> dict[str, np.ndarray]:
    """Each split's integer labels as the float32 targets the losses take."""
    return {name: split.y.astype(np.float32) for name, split in dataset.splits.items()}


def score(
    forward: Forward, approach: Approach, features: dict[str, np.ndarray], dataset: Dataset
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """``(metrics, baseline)`` on every split but train: the model's integer readout and the
    constant predictor (training median), each mapping split -> metric -> value."""
    return score_readouts(readouts(forward, approach), features, dataset)


def readouts(forward: Forward, approach: Approach) -> Callable[[np.ndarray], dict[str, np.ndarray]]:
    """The integer readouts of a network as :func:`score_readouts` takes them: ``""`` the
    approach's main one, then its extra ones by name."""

    def predict(x: np.ndarray) -> dict[str, np.ndarray]:
        out = forward(x)
        return {"": approach.decode(out)} | {k: f(out) for k, f in approach.readouts.items()}

    return predict


def score_readouts(
    predict: Callable[[np.ndarray], dict[str, np.ndarray]],
    features: dict[str, np.ndarray],
    dataset: Dataset,
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """As :func:`score`, for any predictor: ``predict(x)`` maps ``""`` to the integer readout
    (scored with every metric of roundlab.metrics) and each extra readout's name to its
    integers (scored as ``<name>_exact_match`` and ``<name>_mae``)."""
    scores, baseline = {}, {}
    for name, split in dataset.splits.items():
        if name == "train":
            continue
        readouts = predict(features[name])
        scores[name] = metrics.integer_metrics(split.y, readouts.pop(""))
        for extra, pred in readouts.items():
            values = metrics.integer_metrics(split.y, pred)
            scores[name] |= {f"{extra}_{m}": values[m] for m in ("exact_match", "mae")}
        baseline[name] = metrics.baseline_metrics(dataset.train.y, split.y)
    return scores, baseline


def oracle(dataset: Dataset, splits: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The dataset's oracle on the splits a run was scored on; empty when it has none."""
    return {split: dict(best) for split, best in (dataset.oracle or {}).items() if split in splits}


def inference(network: Network, pre_activation: bool = False, batch: int = 8192) -> Forward:
    """The forward pass of ``network`` (its output, or with ``pre_activation`` the output unit
    before the head) in inference mode, in batches, as one traced graph (not XLA) per network
    and per parameter of its rounding activations.

    An eager Keras call dispatches every layer from Python (about 10 ms for the default MLP with
    a rounding head), and a stacked group evaluates each of its members in one network
    (:func:`roundlab.sweep.vectorized.record_member`), on every split: traced once, a call costs
    a fraction of a millisecond. The weights are variables the graph reads, so loading another
    member's weights needs no new trace; an activation's parameter (``steepness=5``) is a Python
    value fixed at tracing, so each parameter gets its own graph (:func:`_activation_state`).
    """
    if pre_activation:  # before the head: the same graph for every parameter
        return traced(network.pre_activation, network.graphs, ("pre_activation",), batch)
    return traced(network.model, network.graphs, ("forward", _activation_state(network)), batch)


def traced(model: Any, graphs: dict[tuple, Any], key: tuple = (), batch: int = 8192) -> Forward:
    """``model(x, training=False)`` in batches through the graph ``graphs[key]``, traced on
    first use. Every engine scores, and a saved model predicts, through such a graph: TensorFlow
    may rewrite a graph's arithmetic (fused ops), so its outputs can differ from an eager call's
    in the last bit, and a served model must give what its run was scored on."""
    if key not in graphs:
        spec = tf.TensorSpec([None, model.input_shape[-1]], tf.float32)
        graphs[key] = _quiet(
            tf.function(
                lambda x: model(x, training=False),
                input_signature=[spec],
                jit_compile=False,
                autograph=False,  # plain Keras calls: nothing to convert
            )
        )
    graph = graphs[key]

    def forward(x: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [graph(_float32(x[i : i + batch])).numpy() for i in range(0, len(x), batch)]
        )

    return forward


def zero_grad_fraction(
    network: Network, approach: Approach, x: np.ndarray, y: np.ndarray, batch: int = 4096
) -> float:
    """Fraction of training examples whose loss gradient w.r.t. the output unit before the head
    (the pre-activation output; all logits for classification) is exactly zero, in inference
    mode. Those examples no longer teach the network anything. Traced as :func:`inference` is."""
    pre_activation = inference(network, pre_activation=True)
    key = ("zero_grad", _activation_state(network))
    if key not in network.graphs:
        units = network.pre_activation.output_shape[-1]
        specs = [tf.TensorSpec([None, units], tf.float32), tf.TensorSpec([None], tf.float32)]
        network.graphs[key] = _quiet(
            tf.function(
                lambda z, t: _zero_rows(approach, z, t),
                input_signature=specs,
                jit_compile=False,
                autograph=False,
            )
        )
    zero_rows = network.graphs[key]
    zero = 0
    for start in range(0, len(x), batch):
        z = pre_activation(x[start : start + batch])
        zero += int(zero_rows(_float32(z), _float32(y[start : start + batch])))
    return zero / len(x)


def _zero_rows(approach: Approach, z: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    """How many rows of ``z`` get an all-zero loss gradient through the approach's head."""
    with tf.GradientTape() as tape:
        tape.watch(z)
        out = z
        for layer in approach.head:
            out = layer(out)
        loss = tf.reduce_sum(approach.loss(y, out))
    grad = tape.gradient(loss, z)
    if grad is None:  # the head cuts the gradient for every row
        return tf.shape(z)[0]
    return tf.reduce_sum(tf.cast(tf.reduce_all(grad == 0, axis=-1), tf.int32))


def _activation_state(network: Network) -> tuple[str, ...]:
    """The rounding activations of ``network`` with their parameters, e.g.
    ``("Activation('sigmoid_round', steepness=5.0)",)``: what a traced graph fixes."""
    return tuple(
        repr(layer.activation)
        for layer in network.model.layers
        if isinstance(getattr(layer, "activation", None), activations.Activation)
    )


def _quiet(function: Any) -> Any:
    """``function`` without TensorFlow's "frequent retracing" warning: it counts the traces of
    every function made from the same code, and one graph per network and parameter is the
    point here, not a mistake."""
    function._omit_frequent_tracing_warning = True
    return function


def _float32(x: Any) -> tf.Tensor:
    return tf.convert_to_tensor(np.asarray(x), tf.float32)


def fill_result(
    result: RunResult,
    fitted: Fitted,
    network: Network,
    approach: Approach,
    x: dict[str, np.ndarray],
    y: dict[str, np.ndarray],
    dataset: Dataset,
) -> None:
    """Record a trained network's history, epochs and scores in ``result``, with the dataset's
    oracle on the same splits, whichever engine trained it."""
    result.history = fitted.history
    result.best_epoch, result.epochs_run = fitted.best_epoch, fitted.epochs_run
    result.converged = fitted.converged
    result.metrics, result.baseline = score(inference(network), approach, x, dataset)
    result.oracle = oracle(dataset, result.metrics)
    result.zero_grad_fraction = zero_grad_fraction(network, approach, x["train"], y["train"])
