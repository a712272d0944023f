"""One run, trained by Keras ``fit``: the path every job can take (numpy-backed activations
and dropout included)."""

from __future__ import annotations

import logging
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from roundlab.approaches.head import Approach
from roundlab.engine import evaluation, kfold, models
from roundlab.engine.early_stopping import EarlyStopping, best_epoch
from roundlab.engine.outcome import Fitted, TrainingFailed, nan_epoch, nan_failure

log = logging.getLogger(__name__)


def fit(
    network: models.Network,
    approach: Approach,
    x: dict[str, np.ndarray],
    y: dict[str, np.ndarray],
    trainer: Any,
    stopping: EarlyStopping | None,
    jit: bool,
    shown: list[keras.callbacks.Callback] | None = None,
    cap: int | None = None,
) -> Fitted:
    """Train ``network`` on ``x["train"]`` with ``approach``'s loss, validating on ``x["val"]``
    every epoch; with ``stopping`` the best epoch's weights are restored at the end; ``shown``
    are callbacks that report progress. Raises :class:`TrainingFailed` when the loss has no
    gradient or becomes NaN. ``cap``: the epochs it may train
    (:func:`~roundlab.engine.early_stopping.epoch_cap`; ``trainer.epochs`` when None)."""
    cap = trainer.epochs if cap is None else cap
    check_gradients(network, approach, x["train"], y["train"], trainer.batch_size)
    network.model.compile(
        optimizer=models.optimizer(trainer.optimizer, trainer.learning_rate),
        loss=approach.loss,
        metrics=approach.metrics(),
        jit_compile=jit,
    )
    callbacks = [keras.callbacks.TerminateOnNaN(), *(shown or [])]
    if stopping is not None:
        callbacks.append(stopping.keras_callback())
    history = network.model.fit(
        x["train"],
        y["train"],
        validation_data=(x["val"], y["val"]),
        batch_size=trainer.batch_size,
        epochs=cap,
        shuffle=True,
        callbacks=callbacks,
        verbose=trainer.verbose,
    ).history
    history = {k: [float(v) for v in values] for k, values in history.items()}
    bad = nan_epoch(history.get("loss", []))
    if bad is not None:
        raise TrainingFailed(nan_failure(bad, trainer.learning_rate))
    best, ran = best_epoch(history, stopping)
    return Fitted(history, best, ran, cap)


def cross_validate(
    network: models.Network,
    approach: Approach,
    x_dev: np.ndarray,
    y_dev: np.ndarray,
    folds: kfold.Folds,
    trainer: Any,
    stopping: EarlyStopping | None,
    jit: bool,
    shown: list[keras.callbacks.Callback] | None = None,
    cap: int | None = None,
) -> tuple[kfold.CrossValidation, Fitted]:
    """K-fold selection with Keras ``fit`` (:mod:`roundlab.engine.kfold`): one :func:`fit` per
    fold (up to ``cap`` epochs) from ``network``'s current (initial) weights, scored on its
    held-out rows, then the refit on every development row (``x_dev``, int labels ``y_dev``)
    for the folds' epoch count, which ``network`` holds at the end."""
    initial = network.model.get_weights()
    targets = y_dev.astype(np.float32)
    cv = kfold.CrossValidation(folds, [], [], early_stopping=stopping is not None)
    for f in range(folds.k):
        network.model.set_weights(initial)
        tr, held = folds.training(f), folds.held_out(f)
        x = {"train": x_dev[tr], "val": x_dev[held]}
        y = {"train": targets[tr], "val": targets[held]}
        cv.fits.append(fit(network, approach, x, y, trainer, stopping, jit, shown, cap))
        predict = evaluation.readouts(evaluation.inference(network), approach)
        scores, baseline = kfold.fold_scores(predict, x_dev, y_dev, folds, f)
        cv.scores.append(scores)
        cv.baselines.append(baseline)
    network.model.set_weights(initial)
    return cv, refit(network, approach, x_dev, targets, trainer, cv.refit_epochs, jit, shown)


def refit(
    network: models.Network,
    approach: Approach,
    x: np.ndarray,
    y: np.ndarray,
    trainer: Any,
    epochs: int,
    jit: bool,
    shown: list[keras.callbacks.Callback] | None = None,
) -> Fitted:
    """Train on every row of ``x`` for exactly ``epochs`` epochs, nothing held out (the k-fold
    refit); the last epoch's weights are kept. Raises :class:`TrainingFailed` as :func:`fit`."""
    network.model.compile(
        optimizer=models.optimizer(trainer.optimizer, trainer.learning_rate),
        loss=approach.loss,
        metrics=approach.metrics(),
        jit_compile=jit,
    )
    history = network.model.fit(
        x,
        y,
        batch_size=trainer.batch_size,
        epochs=epochs,
        shuffle=True,
        callbacks=[keras.callbacks.TerminateOnNaN(), *(shown or [])],
        verbose=trainer.verbose,
    ).history
    history = {k: [float(v) for v in values] for k, values in history.items()}
    bad = nan_epoch(history.get("loss", []))
    if bad is not None:
        raise TrainingFailed(nan_failure(bad, trainer.learning_rate))
    ran = len(history["loss"])
    return Fitted(history, ran - 1, ran, trainer.epochs)


def check_gradients(
    network: models.Network, approach: Approach, x: np.ndarray, y: np.ndarray, batch: int
) -> None:
    """Fail before fitting when the loss has no gradient for some weights (hard_round)."""
    model = network.model
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(approach.loss(y[:batch], model(x[:batch], training=True)))
    grads = tape.gradient(loss, model.trainable_variables)
    missing = [v.path for v, g in zip(model.trainable_variables, grads, strict=True) if g is None]
    if missing:
        shown = ", ".join(missing[:3]) + (", ..." if len(missing) > 3 else "")
        raise TrainingFailed(
            f"no gradient: the loss has no gradient with respect to {len(missing)} of "
            f"{len(grads)} weight tensors ({shown}); an activation on their path has none "
            f"(activations: {', '.join(network.activation_names)})"
        )
