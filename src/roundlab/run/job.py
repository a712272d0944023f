"""One job, as named steps: ``train(cfg) -> RunResult``.

    resolve -> validate -> check results_dir -> check tracking -> start the session -> load
        -> build -> fit -> record

Each step is a function of the values it uses. The steps raise
:class:`roundlab.errors.ConfigError` for a config that cannot run,
:class:`roundlab.errors.WriteFailed` for a results_dir it cannot write to (before anything
trains, not when the result is written) and :class:`roundlab.errors.TrackingUnreachable` for a
dead tracking server under the fail policy, and let data errors propagate: nothing is written
then. Any failure once training starts (no gradient, NaN loss, a crash) becomes a FAILED
result (:mod:`roundlab.run.recording`); an interruption is recorded KILLED and re-raised.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from pathlib import Path

from omegaconf import DictConfig

from roundlab import approaches, data, paths
from roundlab.approaches.head import Approach
from roundlab.data import Dataset
from roundlab.engine import evaluation, kfold, models, references, session, single
from roundlab.engine.early_stopping import epoch_cap
from roundlab.engine.epoch_log import EpochLog
from roundlab.engine.memory import check_memory
from roundlab.engine.xla import use_xla
from roundlab.errors import ConfigError
from roundlab.results import RunResult
from roundlab.run.config import resolve
from roundlab.run.fingerprint import stamp
from roundlab.run.recording import Recording
from roundlab.run.validate import early_stopping, objective, validate
from roundlab.runs import RunKey
from roundlab.tracking.server import usable

log = logging.getLogger(__name__)

Fill = Callable[[RunResult], models.Network | None]


def train(cfg: DictConfig, sweep_dir: Path | None = None) -> RunResult:
    """Train and evaluate the run ``cfg`` describes, write its result file, log it to MLflow.
    ``sweep_dir`` makes the MLflow run a child of that sweep's parent run."""
    cfg = resolve(cfg)
    validate(cfg)
    paths.check_writable(Path(cfg.results_dir), "results_dir")
    usable(cfg.tracking)  # a dead tracking server stops the run here, before data and training
    device = session.start(cfg.seed, cfg.trainer.deterministic, cfg.trainer.mixed_precision)
    dataset = load(cfg.dataset, cfg.objective)
    fill = build(cfg, dataset, by_hand=sweep_dir is None)
    record = Recording(cfg, RunKey.from_config(cfg), str(device), sweep_dir, dataset)
    with record.capture() as result:
        network = fill(result)
        if network is not None:  # a reference fit has no network to save
            record.keep(network.model)
    stamp(record.result, cfg)
    return record.close()


def load(dataset_cfg: DictConfig, objective_text: str) -> Dataset:
    """The run's data, with the split its objective reads."""
    dataset = data.materialize(dataset_cfg)
    split, _, _ = objective(objective_text)
    if split not in dataset.splits:
        raise ConfigError(
            f"objective needs a split the dataset {dataset.name} does not have. "
            f"Received: objective={objective_text!r}"
        )
    data.warn_if_constant(dataset.name, dataset.train.y)
    return dataset


def build(cfg: DictConfig, dataset: Dataset, by_hand: bool = False) -> Fill:
    """What fills the run's result: a reference's fit (no network), its settings and labels
    checked, else the network's approach, checked against the memory limit, both
    before anything is recorded; ``by_hand`` (not a sweep's job) logs one line per epoch."""
    if approaches.get(cfg.approach.name).is_reference:
        reference = references.fitter(cfg.approach.name, cfg.approach, cfg.seed, dataset.train.y)
        standardize = cfg.trainer.standardize_features
        kfolds = kfold.method(cfg.trainer.selection, len(dataset.val)) == "kfold"
        return functools.partial(
            references.fit_and_evaluate,
            reference,
            standardize,
            dataset,
            cv_folds=cfg.trainer.cv_folds if kfolds else None,
        )
    approach = approaches.build(cfg, dataset.train.y)
    t = cfg.trainer
    check_memory(
        dataset.n_features,
        list(cfg.model.hidden_sizes),
        approach.units,
        t.optimizer,
        t.batch_size,
        len(dataset.val),
        t.max_memory_mb,
    )
    return functools.partial(fit, cfg.model, t, dataset, approach, by_hand)


def fit(
    model_cfg: DictConfig,
    trainer: DictConfig,
    dataset: Dataset,
    approach: Approach,
    by_hand: bool,
    result: RunResult,
) -> models.Network:
    """Train with Keras ``fit``, fill ``result`` with the history, epochs and scores and return
    the trained network."""
    x = evaluation.standardized_features(dataset, trainer.standardize_features)
    y = evaluation.labels(dataset)
    network = models.build_mlp(dataset.n_features, model_cfg, approach)
    jit = use_xla(
        trainer.jit_compile,
        stacked=False,
        supports_jit=network.supports_jit,
        deterministic=trainer.deterministic,
    )
    log.info("XLA compilation %s", "on" if jit else "off")
    stopping = early_stopping(trainer.early_stopping)
    cap = epoch_cap(trainer.epochs, trainer.max_epochs_factor, stopping)
    shown = [EpochLog(cap)] if by_hand else []
    result.engine = {"name": "single", "jit_compile": jit}
    if kfold.method(trainer.selection, len(dataset.val)) == "holdout":
        fitted = single.fit(network, approach, x, y, trainer, stopping, jit, shown, cap)
        evaluation.fill_result(result, fitted, network, approach, x, y, dataset)
        result.engine["selection"] = kfold.holdout_record(len(dataset.val))
        return network
    x_dev, y_dev = kfold.development(dataset, x)
    folds = kfold.assign(y_dev, trainer.cv_folds)
    cv, fitted = single.cross_validate(
        network, approach, x_dev, y_dev, folds, trainer, stopping, jit, shown, cap
    )
    evaluation.fill_result(result, fitted, network, approach, x, y, dataset)
    cv.record(result, len(y_dev))
    return network
