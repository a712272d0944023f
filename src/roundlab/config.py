"""Typed schemas of the training config, and the checks that need more than a type.

The YAML files under ``conf/`` hold the values; the dataclasses here hold their types. Each is
registered in Hydra's ConfigStore under ``schema/<group>/<name>`` and extended by its YAML file,
so a wrong type (``trainer.epochs=abc``) or an unknown key (``model.widht=3``) fails when Hydra
composes the config. What a type cannot say (``activation.width=1.5``, ``trainer.dropout=2``)
:func:`validate` checks before any data is loaded, with an error naming the key and the value.
Activation parameters are checked by :func:`roundlab.activations.get`, the one place that knows
their ranges.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING, DictConfig, OmegaConf

from roundlab import activations, approaches, paths
from roundlab.engine.early_stopping import MAXIMISED, MONITORS, EarlyStopping
from roundlab.guards import DEFAULT_MAX_CLASSES, DEFAULT_MAX_MEMORY_MB
from roundlab.results import EVAL_SPLITS, METRICS
from roundlab.runs import activation_params
from roundlab.tracking_server import ON_UNREACHABLE

LOSSES = ("mse", "huber")
JIT_CHOICES = ("auto", "true", "false")
LOG_MODELS_CHOICES = ("auto", "true", "false")


def default_results_dir() -> str:
    """Where a run started without ``results_dir=`` writes its result file: ``results/`` in its
    own Hydra output directory, ``outputs/<date>/<time>/results`` for a run and
    ``multirun/<date>/<time>/results`` for every job of a ``-m`` sweep (one tree, as the report
    reads it). The pipeline's results/ is the sweep stage's DVC output: only
    ``python -m roundlab.sweep`` writes there, and it passes ``results_dir=`` explicitly.
    Outside a Hydra app (:func:`compose` in scripts) there is no output directory:
    ``<root>/outputs/results``."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    if not HydraConfig.initialized():
        return str(paths.project_root() / "outputs" / "results")
    hydra_cfg = HydraConfig.get()
    multirun = hydra_cfg.mode == RunMode.MULTIRUN
    # runtime.output_dir is set once the job runs; `--cfg job` resolves before that
    run_dir = OmegaConf.select(hydra_cfg, "runtime.output_dir", default=hydra_cfg.run.dir)
    base = hydra_cfg.sweep.dir if multirun else run_dir
    return str(Path(base).absolute() / "results")


# ${roundlab.results_dir:} and ${roundlab.tracking_uri:} in conf/: the project's defaults,
# computed when the config is resolved (in the job, so $MLFLOW_TRACKING_URI and $ROUNDLAB_ROOT
# of the job's environment count). Registered on import: joblib workers resolve configs too.
OmegaConf.register_new_resolver("roundlab.results_dir", default_results_dir, replace=True)
OmegaConf.register_new_resolver("roundlab.tracking_uri", paths.default_tracking_uri, replace=True)


class ConfigError(ValueError):
    """A config value that composes but cannot be trained with."""


@dataclass
class ApproachConfig:
    name: str = MISSING


@dataclass
class ClassificationConfig(ApproachConfig):
    # One softmax unit per label of the training range: a wider range is refused before
    # anything is built (roundlab.guards), a 5,000,001-unit head needs gigabytes.
    max_classes: int = DEFAULT_MAX_CLASSES


@dataclass
class OrdinalConfig(ClassificationConfig):
    # corn | coral (roundlab.approaches.ordinal); each is a run of its own (RunKey.method).
    method: str = approaches.get("ordinal").methods[0]


@dataclass
class ModelConfig:
    name: str = "mlp"
    hidden_sizes: list[int] = field(default_factory=lambda: [64, 64])
    # A Keras activation name (relu, tanh, ...) or a roundlab activation name (spiky_np, ...).
    hidden_activation: str = "relu"
    hidden_activation_params: dict[str, float] = field(default_factory=dict)
    dropout: float = 0.0


@dataclass
class EarlyStoppingConfig:
    # Stop once `monitor` (a validation history key) has not improved by more than min_delta
    # for `patience` epochs, and keep the best epoch's weights.
    enabled: bool = True
    monitor: str = "val_loss"
    patience: int = 10
    min_delta: float = 0.0


@dataclass
class TrainerConfig:
    optimizer: str = "adam"
    learning_rate: float = 1e-3
    batch_size: int = 64
    epochs: int = 50
    # Loss of the regression approach; classification uses cross-entropy, rounding MSE.
    loss: str = "mse"
    huber_delta: float = 1.0
    standardize_features: bool = True
    # TensorFlow op determinism: the same config and seed give the same metrics. Keras compiles
    # nothing with XLA while it is on (not every XLA kernel is deterministic).
    deterministic: bool = True
    # auto: XLA when deterministic is off and every layer can be compiled (numpy-backed
    # activations cannot); true | false.
    jit_compile: str = "auto"
    mixed_precision: bool = False
    verbose: int = 0
    # A run whose memory estimate (weights, optimizer state, one batch; roundlab.guards)
    # exceeds this many MB is refused before its network is built.
    max_memory_mb: float = DEFAULT_MAX_MEMORY_MB
    early_stopping: EarlyStoppingConfig = field(default_factory=EarlyStoppingConfig)


@dataclass
class TrackingConfig:
    enabled: bool = True
    uri: str = MISSING
    experiment: str = MISSING
    # A remote server that does not answer within connect_timeout_s seconds (checked once per
    # process): fail before training, or warn and train untracked; auto = fail when the URI was
    # given explicitly ($MLFLOW_TRACKING_URI or tracking.uri), warn otherwise.
    on_unreachable: str = "auto"
    connect_timeout_s: float = 3.0
    # Log each finished run's model to MLflow (roundlab.mlflow_model); auto: for single runs,
    # not for a multirun's jobs (their .keras files are saved beside their result files anyway).
    log_models: str = "auto"


@dataclass
class SweepConfig:
    # In a multirun, skip every job whose result file is FINISHED (or FAILED for a
    # deterministic reason) with the same fingerprint (roundlab.resume); false retrains all.
    resume: bool = True


@dataclass
class Config:
    dataset: Any = MISSING
    approach: ApproachConfig = MISSING
    activation: Any = MISSING
    model: ModelConfig = MISSING
    trainer: TrainerConfig = MISSING
    tracking: TrackingConfig = MISSING
    sweep: SweepConfig = field(default_factory=SweepConfig)
    seed: int = 0
    results_dir: str = MISSING
    # <split>/<metric> returned to Hydra sweepers, e.g. val/exact_match or val/mae.
    objective: str = "val/exact_match"
    # A multirun (-m) exits 1 when a job failed; by default it exits 0 once its plan ran.
    fail_on_failed_jobs: bool = False


def activation_schema(name: str) -> type:
    """A dataclass with ``name`` and the activation's parameter, so other keys are refused."""
    spec = activations.spec(name)
    fields_ = [("name", str, dataclasses.field(default=name))]
    if spec.param is not None:
        fields_.append((spec.param, float, dataclasses.field(default=float(spec.default))))
    return dataclasses.make_dataclass(f"{name}_activation_config", fields_)


def register_configs() -> None:
    """Put every schema in Hydra's ConfigStore (the data schemas too); idempotent."""
    from roundlab import data

    data.register_configs()
    cs = ConfigStore.instance()
    cs.store(name="base_config", node=Config)
    cs.store(group="schema/approach", name="approach", node=ApproachConfig)
    cs.store(group="schema/approach", name="classification", node=ClassificationConfig)
    cs.store(group="schema/approach", name="ordinal", node=OrdinalConfig)
    cs.store(group="schema/model", name="mlp", node=ModelConfig)
    cs.store(group="schema/trainer", name="trainer", node=TrainerConfig)
    cs.store(group="schema/tracking", name="tracking", node=TrackingConfig)
    for name in activations.names():
        cs.store(group="schema/activation", name=name, node=activation_schema(name))


def compose(
    overrides: list[str] | tuple[str, ...] = (),
    config_dir: Path | None = None,
    return_hydra_config: bool = False,
) -> DictConfig:
    """The config ``python -m roundlab.train <overrides>`` would run, for tests and scripts."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    register_configs()
    with initialize_config_dir(config_dir=str(config_dir or paths.CONF_DIR), version_base="1.3"):
        return hydra_compose(
            "config", overrides=list(overrides), return_hydra_config=return_hydra_config
        )


def objective(cfg: DictConfig) -> tuple[str, str, bool]:
    """``(split, metric, maximise)`` of ``cfg.objective``."""
    split, _, metric = cfg.objective.partition("/")
    if split not in EVAL_SPLITS or metric not in METRICS:
        raise ConfigError(
            f"objective must be <split>/<metric> with split in {EVAL_SPLITS} and metric in "
            f"{METRICS}. Received: objective={cfg.objective!r}"
        )
    return split, metric, metric in MAXIMISED


def jit_setting(cfg: DictConfig) -> bool | None:
    """``trainer.jit_compile`` as True/False, or None for auto."""
    value = str(cfg.trainer.jit_compile).lower()
    if value not in JIT_CHOICES:
        raise ConfigError(
            f"trainer.jit_compile must be one of {JIT_CHOICES}. "
            f"Received: trainer.jit_compile={cfg.trainer.jit_compile!r}"
        )
    return None if value == "auto" else value == "true"


def jit_enabled(cfg: DictConfig, supports_jit: bool) -> bool:
    """Whether the model runs under XLA: ``trainer.jit_compile``, or for auto, when every layer
    can be compiled and op determinism is off (Keras compiles nothing with XLA under it)."""
    jit = jit_setting(cfg)
    return supports_jit and not cfg.trainer.deterministic if jit is None else jit


def early_stopping(cfg: DictConfig) -> EarlyStopping | None:
    """``trainer.early_stopping`` as the engines take it; None when disabled."""
    es = cfg.trainer.early_stopping
    if not es.enabled:
        return None
    return EarlyStopping(monitor=es.monitor, patience=es.patience, min_delta=es.min_delta)


def validate(cfg: DictConfig) -> None:
    """Everything the types cannot check; raises :class:`ConfigError` naming key and value."""
    if cfg.approach.name not in approaches.names():
        _fail("approach.name", cfg.approach.name, f"must be one of {approaches.names()}")
    params = activation_params(cfg.activation)
    try:
        activations.get(cfg.activation.name, **params)
    except ValueError as err:
        given = ", ".join(f"activation.{k}={v!r}" for k, v in params.items())
        raise ConfigError(f"activation={cfg.activation.name} ({given}): {err}") from err
    for key, value, holds, rule in _rules(cfg):
        if not holds:
            _fail(key, value, rule)
    _check_hidden_activation(cfg.model.hidden_activation, dict(cfg.model.hidden_activation_params))
    _check_optimizer(cfg.trainer.optimizer)
    _check_jit(cfg)
    objective(cfg)


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
        ("trainer.learning_rate", t.learning_rate, t.learning_rate > 0, "must be > 0"),
        ("trainer.batch_size", t.batch_size, t.batch_size >= 1, "must be >= 1"),
        ("trainer.epochs", t.epochs, t.epochs >= 1, "must be >= 1"),
        ("trainer.max_memory_mb", t.max_memory_mb, t.max_memory_mb > 0, "must be > 0"),
        ("trainer.loss", t.loss, t.loss in LOSSES, f"must be one of {LOSSES}"),
        ("trainer.huber_delta", t.huber_delta, t.huber_delta > 0, "must be > 0"),
        ("trainer.early_stopping.patience", es.patience, es.patience >= 0, "must be >= 0"),
        ("trainer.early_stopping.min_delta", es.min_delta, es.min_delta >= 0, "must be >= 0"),
        (
            "trainer.early_stopping.monitor",
            es.monitor,
            es.monitor in MONITORS,
            f"must be one of {list(MONITORS)}",
        ),
        (
            "tracking.on_unreachable",
            tr.on_unreachable,
            tr.on_unreachable in ON_UNREACHABLE,
            f"must be one of {list(ON_UNREACHABLE)}",
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
    if jit_setting(cfg) and t.deterministic:
        _fail(
            "trainer.jit_compile",
            t.jit_compile,
            "cannot be true with trainer.deterministic=true (Keras compiles nothing with XLA "
            "under op determinism); set trainer.deterministic=false",
        )
    if jit_setting(cfg):
        numpy_backed = [n for n in _roundlab_activations(cfg) if activations.spec(n).numpy_backed]
        if numpy_backed:
            _fail(
                "trainer.jit_compile",
                t.jit_compile,
                f"cannot be true with numpy-backed activations {numpy_backed} (XLA cannot "
                f"compile tf.numpy_function); use auto",
            )


def _roundlab_activations(cfg: DictConfig) -> list[str]:
    """The roundlab activations the model will contain."""
    hidden = cfg.model.hidden_activation
    used = [hidden] if hidden in activations.names() else []
    if approaches.get(cfg.approach.name).uses_activation:
        used.append(cfg.activation.name)
    return used


def _check_hidden_activation(name: str, params: dict[str, float]) -> None:
    import keras

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
    import keras

    try:
        keras.optimizers.get(name)
    except ValueError as err:
        raise ConfigError(
            f"trainer.optimizer must name a Keras optimizer (adam, sgd, rmsprop, ...). "
            f"Received: trainer.optimizer={name!r}"
        ) from err


def _fail(key: str, value: Any, rule: str) -> None:
    raise ConfigError(f"{key} {rule}. Received: {key}={value!r}")
