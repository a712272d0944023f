"""The checks a config needs beyond its types, run before any data is loaded.

:func:`validate` raises :class:`roundlab.errors.ConfigError` naming the key and the value
received. Each rule that another layer also needs lives with that layer and is called from here
(activation parameters in :func:`roundlab.activations.get`, the names that become directories
and the learning rate in :mod:`roundlab.runs`, the tracking policy in
:func:`roundlab.tracking.server.check_on_unreachable`, XLA in :mod:`roundlab.engine.xla`).
"""

from __future__ import annotations

import functools
from typing import Any

import keras
from omegaconf import DictConfig

from roundlab import activations, approaches
from roundlab.engine.early_stopping import MAXIMISED, MONITORS, EarlyStopping
from roundlab.engine.kfold import SELECTIONS
from roundlab.engine.xla import jit_setting
from roundlab.errors import ConfigError
from roundlab.results import EVAL_SPLITS, METRICS
from roundlab.runs import check_learning_rate, check_name
from roundlab.tracking.server import check_on_unreachable

LOSSES = ("mse", "huber")
LOG_MODELS_CHOICES = ("auto", "true", "false")


def objective(text: str) -> tuple[str, str, bool]:
    """``(split, metric, maximise)`` of an objective ``<split>/<metric>``."""
    split, _, metric = str(text).partition("/")
    if split not in EVAL_SPLITS or metric not in METRICS:
        raise ConfigError(
            f"objective must be <split>/<metric> with split in {EVAL_SPLITS} and metric in "
            f"{METRICS}. Received: objective={text!r}"
        )
    return split, metric, metric in MAXIMISED


def early_stopping(es: Any) -> EarlyStopping | None:
    """A ``trainer.early_stopping`` node as the engines take it; None when disabled."""
    if not es.enabled:
        return None
    return EarlyStopping(monitor=es.monitor, patience=es.patience, min_delta=es.min_delta)


def validate(cfg: DictConfig) -> None:
    """Everything the types cannot check; raises :class:`ConfigError` naming key and value."""
    for key, name in _names(cfg):
        check_name(name, key)
    if cfg.approach.name not in approaches.names():
        _fail("approach.name", cfg.approach.name, f"must be one of {approaches.names()}")
    params = activations.activation_params(cfg.activation)
    try:
        activations.get(cfg.activation.name, **params)
    except ValueError as err:
        given = ", ".join(f"activation.{k}={v!r}" for k, v in params.items())
        raise ConfigError(f"activation={cfg.activation.name} ({given}): {err}") from err
    for key, value, holds, rule in _rules(cfg):
        if not holds:
            _fail(key, value, rule)
    check_learning_rate(cfg.trainer.learning_rate)
    check_on_unreachable(cfg.tracking.on_unreachable)
    _check_hidden_activation(cfg.model.hidden_activation, dict(cfg.model.hidden_activation_params))
    _check_optimizer(cfg.trainer.optimizer)
    _check_jit(cfg)
    objective(cfg.objective)


def _names(cfg: DictConfig) -> list[tuple[str, Any]]:
    """The config values that become directories of the result path (checked first: a name
    like ``../x`` must be refused before anything uses it)."""
    method = cfg.approach.get("method")
    names = [
        ("dataset.name", cfg.dataset.name),
        ("approach.name", cfg.approach.name),
        ("activation.name", cfg.activation.name),
    ]
    return names if method is None else [*names, ("approach.method", method)]


def _rules(cfg: DictConfig) -> list[tuple[str, Any, bool, str]]:
    """(key, value, whether the rule holds, the rule) for every single-value check."""
    m, t, tr = cfg.model, cfg.trainer, cfg.tracking
    es = t.early_stopping
    max_classes = cfg.approach.get("max_classes")
    methods = approaches.get(cfg.approach.name).methods
    method = cfg.approach.get("method")
    return [
        ("model.hidden_sizes", list(m.hidden_sizes), min(m.hidden_sizes) >= 1, "must all be >= 1"),
        ("model.dropout", m.dropout, 0.0 <= m.dropout < 1.0, "must be in [0, 1)"),
        ("trainer.batch_size", t.batch_size, t.batch_size >= 1, "must be >= 1"),
        ("trainer.epochs", t.epochs, t.epochs >= 1, "must be >= 1"),
        ("trainer.max_epochs_factor", t.max_epochs_factor, t.max_epochs_factor >= 1, MIN_1),
        ("trainer.max_memory_mb", t.max_memory_mb, t.max_memory_mb > 0, "must be > 0"),
        ("trainer.loss", t.loss, t.loss in LOSSES, f"must be one of {LOSSES}"),
        ("trainer.huber_delta", t.huber_delta, t.huber_delta > 0, "must be > 0"),
        (
            "trainer.selection",
            t.selection,
            t.selection in SELECTIONS,
            f"must be one of {list(SELECTIONS)}",
        ),
        ("trainer.cv_folds", t.cv_folds, t.cv_folds >= 2, "must be >= 2"),
        ("trainer.early_stopping.patience", es.patience, es.patience >= 0, "must be >= 0"),
        ("trainer.early_stopping.min_delta", es.min_delta, es.min_delta >= 0, "must be >= 0"),
        (
            "trainer.early_stopping.monitor",
            es.monitor,
            es.monitor in MONITORS,
            f"must be one of {list(MONITORS)}",
        ),
        (
            "tracking.connect_timeout_s",
            tr.connect_timeout_s,
            tr.connect_timeout_s > 0,
            "must be > 0",
        ),
        (
            "tracking.log_models",
            tr.log_models,
            str(tr.log_models).lower() in LOG_MODELS_CHOICES,
            f"must be one of {list(LOG_MODELS_CHOICES)}",
        ),
        (
            "approach.max_classes",
            max_classes,
            max_classes is None or max_classes >= 1,
            "must be >= 1",
        ),
        ("approach.method", method, not methods or method in methods, f"must be one of {methods}"),
    ]


def _check_jit(cfg: DictConfig) -> None:
    """XLA is refused where it cannot work: under op determinism, with numpy-backed activations."""
    t = cfg.trainer
    if not jit_setting(t.jit_compile):
        return
    if t.deterministic:
        _fail(
            "trainer.jit_compile",
            t.jit_compile,
            "cannot be true with trainer.deterministic=true (Keras compiles nothing with XLA "
            "under op determinism); set trainer.deterministic=false",
        )
    numpy_backed = activations.numpy_backed(cfg.model.hidden_activation, output_activation(cfg))
    if numpy_backed:
        _fail(
            "trainer.jit_compile",
            t.jit_compile,
            f"cannot be true with numpy-backed activations {numpy_backed} (XLA cannot "
            f"compile tf.numpy_function); use auto",
        )


def output_activation(cfg: DictConfig) -> str | None:
    """The output activation the model will end in: None for approaches that use none."""
    return cfg.activation.name if approaches.get(cfg.approach.name).uses_activation else None


def _check_hidden_activation(name: str, params: dict[str, float]) -> None:
    if name in activations.names():
        try:
            activations.get(name, **params)
        except ValueError as err:
            raise ConfigError(
                f"model.hidden_activation={name} (model.hidden_activation_params={params!r}): {err}"
            ) from err
        return
    if params:
        _fail(
            "model.hidden_activation_params",
            params,
            f"are only for roundlab activations, not the Keras activation {name!r}",
        )
    try:
        keras.activations.get(name)
    except ValueError as err:
        raise ConfigError(
            f"model.hidden_activation must be a Keras activation or one of "
            f"{activations.names()}. Received: model.hidden_activation={name!r}"
        ) from err


def _check_optimizer(name: str) -> None:
    if not _is_optimizer(name):
        raise ConfigError(
            f"trainer.optimizer must name a Keras optimizer (adam, sgd, rmsprop, ...). "
            f"Received: trainer.optimizer={name!r}"
        )


@functools.cache
def _is_optimizer(name: str) -> bool:
    """Keras knows ``name``: it builds one to find out (2 ms), so once per name, not per job."""
    try:
        keras.optimizers.get(name)
    except ValueError:
        return False
    return True


MIN_1 = "must be >= 1"


def _fail(key: str, value: Any, rule: str) -> None:
    raise ConfigError(f"{key} {rule}. Received: {key}={value!r}")
