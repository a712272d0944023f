"""A group of sweep jobs trained as one stacked program, then recorded run by run.

:func:`train_group` takes the resolved, validated configs of one group (see
:mod:`roundlab.sweep.grouping`), loads the data once, gives every member the initial weights it
would get alone (``build_mlp`` under its own seed), trains all of them together with
:func:`roundlab.engine.stacked.train_members` and returns a :class:`TrainedGroup`.
:func:`record_member` then evaluates one member in the ordinary ``build_mlp`` model and writes
its result file and MLflow run exactly as a job trained alone would; :func:`record_killed`
records KILLED the members a SIGINT or SIGTERM stopped before their records were closed.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from omegaconf import DictConfig

from roundlab.approaches.head import Approach
from roundlab.data import Dataset
from roundlab.engine import (
    evaluation,
    kfold,
    session,
    single,
    stacked,
    stacked_kfold,
)
from roundlab.engine.early_stopping import epoch_cap
from roundlab.engine.memory import check_memory
from roundlab.engine.models import Network
from roundlab.engine.outcome import Fitted, TrainingFailed
from roundlab.engine.xla import use_xla
from roundlab.interruption import checkpoint
from roundlab.results import KILLED, RunResult
from roundlab.run.fingerprint import data_hash, stamp
from roundlab.run.job import load
from roundlab.run.recording import Recording
from roundlab.run.validate import early_stopping
from roundlab.runs import RunKey
from roundlab.sweep import grouping, networks
from roundlab.tracking import writer


@dataclass
class TrainedGroup:
    """What a group's training left: per member its config, weights and fit, or the reason it
    failed (the same reason for every member when the group has no gradient)."""

    cfgs: list[DictConfig]
    approach: Approach
    network: Network  # the ordinary model each member is loaded into for evaluation
    dataset: Dataset
    x: dict[str, np.ndarray]
    y: dict[str, np.ndarray]
    device: str
    jit: bool
    group_id: str
    seconds_per_member: float
    data_hash: str  # every member's (roundlab.run.fingerprint.data_hash): computed once
    weights: list[list[np.ndarray] | None] = field(default_factory=list)
    fits: list[Fitted | None] = field(default_factory=list)
    errors: list[str | None] = field(default_factory=list)
    # engine["selection"] of every member (a member's cross-validation adds its epochs).
    selection: dict[str, object] = field(default_factory=dict)
    cvs: list[kfold.CrossValidation | None] = field(default_factory=list)
    # Member index -> its recording, from the moment it exists: what an interruption closes.
    recordings: dict[int, Recording] = field(default_factory=dict)


def group_id(cfgs: list[DictConfig]) -> str:
    keys = "\n".join(RunKey.from_config(c).run_name for c in cfgs)
    return hashlib.sha256((grouping.group_key(cfgs[0]) + keys).encode()).hexdigest()[:12]


def train_group(cfgs: list[DictConfig]) -> TrainedGroup:
    """Train the members of one group together. Raises for errors before training (data)."""
    started = time.perf_counter()
    first = cfgs[0]
    trainer = first.trainer
    device = session.start(first.seed, trainer.deterministic, trainer.mixed_precision)
    dataset = load(first.dataset, first.objective)
    x = evaluation.standardized_features(dataset, trainer.standardize_features)
    y = evaluation.labels(dataset)
    jit = use_xla(trainer.jit_compile, stacked=True, device_kind=device.kind)
    key = (grouping.group_key(first), data_hash(first.dataset))
    approach, network = networks.scoring_network(key, first, dataset)
    method = kfold.method(trainer.selection, len(dataset.val))
    copies = trainer.cv_folds if method == "kfold" else 1  # a member per fold
    stacked_members = len(cfgs) * copies
    check_memory(
        dataset.n_features,
        list(first.model.hidden_sizes),
        approach.units,
        trainer.optimizer,
        trainer.batch_size,
        len(dataset.val) + (len(dataset.train) if method == "kfold" else 0),
        trainer.max_memory_mb,
        members=stacked_members,
    )
    members = [_member(cfg, dataset, approach) for cfg in cfgs]
    group = TrainedGroup(
        list(cfgs),
        approach,
        network,
        dataset,
        x,
        y,
        str(device),
        jit,
        group_id(list(cfgs)),
        0.0,
        key[1],
    )
    stopping = early_stopping(trainer.early_stopping)
    cap = epoch_cap(trainer.epochs, trainer.max_epochs_factor, stopping)
    train = {
        "hidden_sizes": tuple(first.model.hidden_sizes),
        "hidden_activation": first.model.hidden_activation,
        "hidden_activation_params": dict(first.model.hidden_activation_params),
        "optimizer": trainer.optimizer,
        "learning_rate": trainer.learning_rate,
        "batch_size": trainer.batch_size,
        "epochs": cap,
        "early_stopping": stopping,
        "jit_compile": jit,
        "program_key": networks.program_key(key),
    }
    group.selection = kfold.holdout_record(len(dataset.val))
    group.cvs = [None] * len(cfgs)
    if method == "kfold":
        x_dev, y_dev = kfold.development(dataset, x)
        folds = kfold.assign(y_dev, trainer.cv_folds)
        group.selection = kfold.kfold_record(folds, len(y_dev))
    try:
        single.check_gradients(network, approach, x["train"], y["train"], trainer.batch_size)
        checkpoint("group training")
        if method == "holdout":
            outcomes = stacked.train_members(
                approach, members, x["train"], y["train"], x["val"], y["val"], **train
            )
        else:
            outcomes = _cross_validate(group, members, x_dev, y_dev, folds, train)
    except TrainingFailed as err:
        group.weights, group.fits = [None] * len(cfgs), [None] * len(cfgs)
        group.errors = [str(err)] * len(cfgs)
    else:
        for outcome in outcomes:
            group.weights.append(outcome.weights)
            group.errors.append(outcome.error)
            group.fits.append(Fitted(outcome.history, outcome.best_epoch, outcome.epochs_run, cap))
    group.seconds_per_member = (time.perf_counter() - started) / len(cfgs)
    return group


def _cross_validate(
    group: TrainedGroup,
    members: list[stacked.Member],
    x_dev: np.ndarray,
    y_dev: np.ndarray,
    folds: kfold.Folds,
    train: dict,
) -> list[stacked.MemberOutcome]:
    """K-fold selection of every member (:mod:`roundlab.engine.stacked_kfold`): its
    cross-validation goes to ``group.cvs``, its refit's outcome is returned."""

    def predictor(m: int, weights: list[np.ndarray]) -> kfold.Predict:
        approach = _load_member(group, m, weights)
        return evaluation.readouts(evaluation.inference(group.network), approach)

    selected = stacked_kfold.cross_validate(
        group.approach, members, x_dev, y_dev, folds, predictor, **train
    )
    group.cvs = [cv for cv, _ in selected]
    return [outcome for _, outcome in selected]


def _member(cfg: DictConfig, dataset: Dataset, approach: Approach) -> stacked.Member:
    """The member's initial weights (:func:`initial_weights`), seed, knob and rate."""
    _, value = grouping.knob(cfg)
    return stacked.Member(
        seed=int(cfg.seed),
        initial_weights=networks.initial_weights(cfg, dataset, approach),
        knob=value,
        learning_rate=float(cfg.trainer.learning_rate),
    )


def record_member(group: TrainedGroup, index: int, sweep_dir: Path | None) -> RunResult:
    """Evaluate member ``index`` in the ordinary ``build_mlp`` model and write its result file and
    MLflow run, as a job trained alone would."""
    cfg = group.cfgs[index]
    key = RunKey.from_config(cfg)
    record = Recording(cfg, key, group.device, sweep_dir, group.dataset, track=False)
    group.recordings[index] = record
    record.started -= group.seconds_per_member  # its share of the group's training time
    result = record.result
    result.engine = {
        "name": "vectorized",
        "group": group.group_id,
        "group_size": len(group.cfgs),
        "jit_compile": group.jit,
    }
    result.engine["selection"] = dict(group.selection)
    cv = group.cvs[index] if group.cvs else None
    record.start_tracking(deferred=True)
    checkpoint("member tracked")
    with record.capture():
        checkpoint("capture")
        if group.errors[index] is not None:
            raise TrainingFailed(group.errors[index])
        approach = _load_member(group, index, group.weights[index])
        evaluation.fill_result(
            result, group.fits[index], group.network, approach, group.x, group.y, group.dataset
        )
        if cv is not None:
            cv.record(result, group.selection["val_rows"])
        record.keep(group.network.model)
    stamp(result, cfg, group.data_hash)
    return record.close()


def record_killed(
    cfgs: list[DictConfig],
    reason: str,
    sweep_dir: Path | None,
    recordings: dict[int, Recording] | None = None,
) -> None:
    """Record KILLED, with ``reason``, every member of a group an interruption stopped before
    its record was closed: with its own recording (of ``recordings``, by member index) when it
    has one, so its MLflow run is the one ended, else with a new one. Each ends with a result
    file and an MLflow run, wherever the signal landed, and every MLflow write deferred so far
    is done before the interruption goes on to end the process."""
    for index, cfg in enumerate(cfgs):
        record = (recordings or {}).get(index)
        if record is None:
            record = Recording(cfg, RunKey.from_config(cfg), None, sweep_dir, track=False)
            record.result.engine = {"name": "vectorized", "group_size": len(cfgs)}
        elif record.closed:
            continue
        # nothing when its MLflow run is open or tracking is off
        record.start_tracking(deferred=True)
        record.result.status, record.result.error = KILLED, reason
        record.model = None
        record.close()
    writer.flush()


def _load_member(group: TrainedGroup, index: int, weights: list[np.ndarray]) -> Approach:
    """Load ``weights`` of member ``index`` into the group's ordinary model, and its parameter
    value on the output activation (a parameter, not a weight, so it is set on the layer)."""
    group.network.model.set_weights(weights)
    networks.set_activation(group.approach, group.cfgs[index])
    return group.approach
