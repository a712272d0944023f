"""What a trained network scored: integer metrics per split, the constant baseline, and the
fraction of training examples whose output gradient is exactly zero."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import tensorflow as tf

from roundlab import metrics
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


def batched(model: Any, batch: int = 8192) -> Forward:
    """An eager forward pass of a Keras model in inference mode, in batches (no per-shape XLA
    recompilation, unlike ``predict``)."""

    def forward(x: np.ndarray) -> np.ndarray:
        return np.concatenate(
            [np.asarray(model(x[i : i + batch], training=False)) for i in range(0, len(x), batch)]
        )

    return forward


def zero_grad_fraction(
    pre_activation: Forward, approach: Approach, x: np.ndarray, y: np.ndarray, batch: int = 4096
) -> float:
    """Fraction of training examples whose loss gradient w.r.t. the output unit before the head
    (the pre-activation output; all logits for classification) is exactly zero, in inference
    mode. Those examples no longer teach the network anything."""
    zero = 0
    for start in range(0, len(x), batch):
        z = tf.convert_to_tensor(pre_activation(x[start : start + batch]))
        with tf.GradientTape() as tape:
            tape.watch(z)
            out = z
            for layer in approach.head:
                out = layer(out)
            loss = tf.reduce_sum(approach.loss(y[start : start + batch], out))
        grad = tape.gradient(loss, z)
        if grad is None:
            zero += len(z)
        else:
            zero += int(tf.reduce_sum(tf.cast(tf.reduce_all(grad == 0, axis=-1), tf.int32)))
    return zero / len(x)


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
    result.metrics, result.baseline = score(batched(network.model), approach, x, dataset)
    result.oracle = oracle(dataset, result.metrics)
    result.zero_grad_fraction = zero_grad_fraction(
        batched(network.pre_activation), approach, x["train"], y["train"]
    )
