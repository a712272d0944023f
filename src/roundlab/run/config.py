"""Typed schemas of the training config, and how a script composes it.

The YAML files under ``roundlab/conf/`` (``roundlab.paths.CONF_DIR``) hold the values; the
dataclasses here hold their types. Each is registered in Hydra's ConfigStore under
``schema/<group>/<name>`` and extended by its YAML file, so a wrong type (``trainer.epochs=abc``)
or an unknown key (``model.widht=3``) fails when Hydra composes the config. What a type cannot
say (``activation.width=1.5``, ``trainer.dropout=2``) :mod:`roundlab.run.validate` checks before
any data is loaded.

Nothing here imports TensorFlow: a sweep composes and fingerprints its jobs' configs in its own
process before it starts any (:mod:`roundlab.sweep.decide`). The activation schemas therefore
come from the generated activation configs (:func:`roundlab.runs.activation_parameters`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from hydra import compose as hydra_compose
from hydra import initialize_config_dir
from hydra.core.config_store import ConfigStore
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import MISSING, DictConfig, OmegaConf
from omegaconf._utils import OmegaConfDumper

from roundlab import approaches, data, paths, runs
from roundlab.approaches.label_range import DEFAULT_MAX_CLASSES


def default_results_dir() -> str:
    """Where a run started without ``results_dir=`` writes its result file: ``results/`` in its
    own Hydra output directory, ``outputs/<date>/<time>/results`` for a run and
    ``multirun/<date>/<time>/results`` for every job of a ``-m`` sweep (one tree, as the report
    reads it). The pipeline's results/ is the sweep stage's DVC output: only
    ``python -m roundlab.sweep`` writes there, and it passes ``results_dir=`` explicitly.
    Outside a Hydra app (:func:`compose` in scripts) there is no output directory:
    ``<root>/outputs/results``."""
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


@dataclass
class ApproachConfig:
    name: str = MISSING


@dataclass
class ClassificationConfig(ApproachConfig):
    # One softmax unit per label of the training range: a wider range is refused before
    # anything is built (roundlab.approaches.label_range), a 5,000,001-unit head needs gigabytes.
    max_classes: int = DEFAULT_MAX_CLASSES


@dataclass
class OrdinalConfig(ClassificationConfig):
    # corn | coral (roundlab.approaches.ordinal); each is a run of its own (RunKey.method).
    method: str = approaches.get("ordinal").methods[0]


@dataclass
class LightgbmConfig(ClassificationConfig):
    # multiclass | regression | poisson (roundlab.engine.gbdt), each a run of its own;
    # max_classes bounds multiclass. What each value means: conf/approach/lightgbm.yaml.
    method: str = approaches.get("lightgbm").methods[0]
    learning_rate: float = 0.05
    num_leaves: int = 31
    max_trees: int = 2000
    early_stopping_rounds: int = 50
    min_data_in_leaf: int = 20


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
    min_delta: float = 1e-4


@dataclass
class TrainerConfig:
    optimizer: str = "adam"
    learning_rate: float = 1e-3
    batch_size: int = 64
    epochs: int = 50
    # Under early stopping, a run still improving after `epochs` keeps training, by the same
    # rule, up to max_epochs_factor * epochs (1: stop at `epochs`).
    max_epochs_factor: int = 4
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
    # A run whose memory estimate (weights, optimizer state, one batch; roundlab.engine.memory)
    # exceeds this many MB is refused before its network is built.
    max_memory_mb: float = 4096.0
    early_stopping: EarlyStoppingConfig = field(default_factory=EarlyStoppingConfig)
    # How early stopping and selection see unseen rows: holdout (the val split), kfold
    # (cv_folds folds of train + val, then a refit; roundlab.engine.kfold) or auto (kfold
    # below KFOLD_BELOW_VAL_ROWS validation rows).
    selection: str = "auto"
    cv_folds: int = 5


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
    # Log each finished run's model to MLflow (roundlab.tracking.model); auto: for single runs,
    # not for a multirun's jobs (their .keras files are saved beside their result files anyway).
    log_models: str = "auto"


@dataclass
class SweepConfig:
    # In a multirun, skip every job whose result file is FINISHED (or FAILED for a
    # deterministic reason) with the same fingerprint (roundlab.sweep.resume); false retrains all.
    resume: bool = True
    # A file listing the result files (relative to results_dir) of the jobs a multirun trains;
    # its other jobs are dropped before training and leave no result (roundlab.sweep.resume).
    # The sweep sets it for the rounds of its rate extensions; null: every job runs.
    only: str | None = None
    # A file listing the jobs of a multirun (a YAML list of lists of overrides), instead of the
    # cross product of its command line: one process runs several families' jobs
    # (roundlab.sweep.workers). Null: the command line's cross product.
    jobs: str | None = None
    # A task queue directory (roundlab.sweep.queue): the multirun is one of the sweep's workers,
    # running one task's jobs after another until the sweep says stop. Null: not a worker.
    queue: str | None = None


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
    fields_ = [("name", str, dataclasses.field(default=name))]
    found = runs.activation_parameters()[name]
    if found is not None:
        param, default = found
        fields_.append((param, float, dataclasses.field(default=default)))
    return dataclasses.make_dataclass(f"{name}_activation_config", fields_)


def register_configs() -> None:
    """Put every schema in Hydra's ConfigStore (the data schemas too); idempotent."""
    data.register_configs()
    cs = ConfigStore.instance()
    cs.store(name="base_config", node=Config)
    cs.store(group="schema/approach", name="approach", node=ApproachConfig)
    cs.store(group="schema/approach", name="classification", node=ClassificationConfig)
    cs.store(group="schema/approach", name="ordinal", node=OrdinalConfig)
    cs.store(group="schema/approach", name="lightgbm", node=LightgbmConfig)
    cs.store(group="schema/model", name="mlp", node=ModelConfig)
    cs.store(group="schema/trainer", name="trainer", node=TrainerConfig)
    cs.store(group="schema/tracking", name="tracking", node=TrackingConfig)
    for name in runs.activation_parameters():
        cs.store(group="schema/activation", name=name, node=activation_schema(name))


def compose(
    overrides: list[str] | tuple[str, ...] = (),
    config_dir: Path | None = None,
    return_hydra_config: bool = False,
) -> DictConfig:
    """The config ``python -m roundlab.train <overrides>`` would run, for tests and scripts."""
    register_configs()
    with initialize_config_dir(config_dir=str(config_dir or paths.CONF_DIR), version_base="1.3"):
        return hydra_compose(
            "config", overrides=list(overrides), return_hydra_config=return_hydra_config
        )


def resolve(cfg: DictConfig, *, copy: bool = True) -> DictConfig:
    """A resolved copy (what the result file and MLflow record), results_dir made absolute;
    ``copy=False`` resolves ``cfg`` itself (a copy the caller just made) and returns it."""
    if copy:
        cfg = cfg.copy()
    OmegaConf.resolve(cfg)
    cfg.results_dir = str(Path(cfg.results_dir).absolute())
    return cfg


if getattr(yaml, "__with_libyaml__", False):

    class _Dumper(yaml.CDumper):  # libyaml's emitter, OmegaConf's representers
        pass

    _Dumper.add_representer(str, OmegaConfDumper.str_representer)
else:  # no libyaml: OmegaConf's own dumper, the same text
    _Dumper = None


def to_yaml(cfg: Any) -> str:
    """``OmegaConf.to_yaml(cfg)``, the same text, emitted by libyaml when PyYAML has it and
    every key and string is ASCII (libyaml escapes some other characters, such as those beyond
    the Basic Multilingual Plane, that PyYAML's own emitter writes as they are)."""
    if _Dumper is None:
        return OmegaConf.to_yaml(cfg)
    container = OmegaConf.to_container(cfg, resolve=False, enum_to_str=True)
    if not _ascii(container):
        return OmegaConf.to_yaml(cfg)
    return yaml.dump(
        container, default_flow_style=False, allow_unicode=True, sort_keys=False, Dumper=_Dumper
    )


def _ascii(node: Any) -> bool:
    if isinstance(node, str):
        return node.isascii()
    if isinstance(node, dict):
        return all(_ascii(k) and _ascii(v) for k, v in node.items())
    if isinstance(node, list):
        return all(_ascii(v) for v in node)
    return True
