"""Train one network on integer labels and evaluate it: ``train(cfg) -> RunResult``.

``python -m roundlab.train [overrides]`` runs one job, ``python -m roundlab.train -m ...`` a
sweep, ``python -m roundlab.train --cfg job`` prints the resolved config. Every run writes its
result file (finished, failed or killed) and logs to MLflow. In a multirun a failing job never
raises out of the Hydra task, so the sweep goes on; it returns the worst objective value instead.

Exit codes: 0 for a run that finished (a multirun: that ran its plan, failed jobs recorded,
unless ``fail_on_failed_jobs=true``); 1 for a run that ended FAILED or could not start (a
config, data or tracking error, in one line without a traceback; ``HYDRA_FULL_ERROR=1`` shows
the traceback of a data error); 130 after SIGINT and 143 after SIGTERM, the run recorded KILLED.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import hydra  # noqa: E402  (TensorFlow reads TF_CPP_MIN_LOG_LEVEL when first imported)
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from hydra.types import RunMode  # noqa: E402
from omegaconf import DictConfig, OmegaConf  # noqa: E402

from roundlab import (  # noqa: E402
    approaches,
    callbacks,
    config,
    guards,
    interruption,
    models,
    paths,
    resume,
)
from roundlab.approaches.head import Approach  # noqa: E402
from roundlab.data import Dataset  # noqa: E402
from roundlab.engine import session  # noqa: E402
from roundlab.recording import Recording  # noqa: E402
from roundlab.results import FAILED, KILLED, RunResult  # noqa: E402
from roundlab.runs import RunKey  # noqa: E402
from roundlab.tracking_server import TrackingUnreachable, usable  # noqa: E402

log = logging.getLogger(__name__)


def train(cfg: DictConfig, sweep_dir: Path | None = None) -> RunResult:
    """Train and evaluate the run ``cfg`` describes, write its result file, log it to MLflow.

    Raises :class:`roundlab.config.ConfigError` for a config that cannot run,
    :class:`roundlab.tracking_server.TrackingUnreachable` for a dead tracking server under the
    fail policy, and lets data errors propagate (nothing is written then); any failure once
    training starts (no gradient, NaN loss, a crash) is returned as a FAILED result instead. An
    interruption (:class:`roundlab.interruption.Interrupted`) is recorded KILLED and re-raised.
    ``sweep_dir`` makes the MLflow run a child of that sweep's parent run.
    """
    cfg = resolved(cfg)
    config.validate(cfg)
    usable(cfg.tracking)  # a dead tracking server stops the run here, before data and training
    device = session.start(cfg.seed, cfg.trainer.deterministic, cfg.trainer.mixed_precision)
    dataset = load_dataset(cfg)
    run = prepare(cfg, dataset, by_hand=sweep_dir is None)
    record = Recording(cfg, RunKey.from_config(cfg), str(device), sweep_dir, dataset)
    with record.capture() as result:
        network = run(result)
        if network is not None:  # a reference fit has no network to save
            record.keep(network.model)
    resume.stamp(record.result, cfg)
    return record.close()


def prepare(
    cfg: DictConfig, dataset: Dataset, by_hand: bool = False
) -> Callable[[RunResult], models.Network | None]:
    """What fills the run's result: a statsmodels fit for a reference approach
    (roundlab.references, no network), else the network, built and checked against the memory
    limit before anything is recorded; ``by_hand`` as in :func:`fit_and_evaluate`."""
    if approaches.get(cfg.approach.name).is_reference:
        from roundlab import references

        return functools.partial(references.fit_and_evaluate, cfg, dataset)
    approach = approaches.build(cfg, dataset.train.y)
    guards.check_memory(cfg, dataset.n_features, approach.units, len(dataset.val))
    return functools.partial(fit_and_evaluate, cfg, dataset, approach, by_hand=by_hand)


def load_dataset(cfg: DictConfig) -> Dataset:
    """The run's data, with the split its objective reads."""
    from roundlab import data

    dataset = data.materialize(cfg.dataset)
    split, _, _ = config.objective(cfg)
    if split not in dataset.splits:
        raise config.ConfigError(
            f"objective needs a split the dataset {dataset.name} does not have. "
            f"Received: objective={cfg.objective!r}"
        )
    guards.warn_if_constant(dataset.name, dataset.train.y)
    return dataset


def fit_and_evaluate(
    cfg: DictConfig, dataset: Dataset, approach: Approach, result: RunResult, by_hand: bool = False
) -> models.Network:
    """Train with Keras ``fit``, fill ``result`` with the history, epochs and scores and return
    the trained network; ``by_hand`` (not a sweep's job) logs one line per epoch."""
    from roundlab import evaluation
    from roundlab.engine import single
    from roundlab.engine.epoch_log import EpochLog

    x = evaluation.standardized_features(dataset, cfg.trainer.standardize_features)
    y = evaluation.labels(dataset)
    network = models.build_mlp(dataset.n_features, cfg.model, approach)
    jit = config.jit_enabled(cfg, network.supports_jit)
    log.info("XLA compilation %s", "on" if jit else "off")
    stopping = config.early_stopping(cfg)
    shown = [EpochLog(cfg.trainer.epochs)] if by_hand else []
    fitted = single.fit(network, approach, x, y, cfg.trainer, stopping, jit, shown)
    result.engine = {"name": "single", "jit_compile": jit}
    evaluation.fill_result(result, fitted, network, approach, x, y, dataset)
    return network


def resolved(cfg: DictConfig) -> DictConfig:
    """A resolved copy (what the result file and MLflow record), results_dir made absolute."""
    cfg = cfg.copy()
    OmegaConf.resolve(cfg)
    cfg.results_dir = str(Path(cfg.results_dir).absolute())
    return cfg


def worst(maximise: bool) -> float:
    """What a failed job returns to a sweeper: the worst possible value of the objective."""
    return -math.inf if maximise else math.inf


def job_return(cfg: DictConfig, job_dir: Path, result: RunResult) -> float:
    """Leave the job's status file and give the sweeper the run's objective value."""
    path = result.key.result_path(result.config["results_dir"])
    callbacks.write_status(job_dir, result.status, result.error, path)
    split, metric, maximise = config.objective(cfg)
    return float(result.metrics[split][metric]) if result.ok else worst(maximise)


def failed_before_training(err: Exception, job_dir: Path, multirun: bool, maximise: bool) -> float:
    """A bad value, missing data or a dead tracking server: no result file. A single run stops
    here (in one line, without a traceback, for the errors :func:`one_line` knows); a sweep
    counts the job as failed and goes on."""
    if not multirun:
        message = one_line(err)
        if message is None:
            raise err
        raise SystemExit(message) from err
    reason = str(err) if isinstance(err, config.ConfigError) else f"{type(err).__name__}: {err}"
    log.error("job failed before training: %s", reason)
    callbacks.write_status(job_dir, FAILED, reason)
    return worst(maximise)


def one_line(err: Exception) -> str | None:
    """The one-line message a single run stops with instead of a traceback: for config and
    tracking errors, and for data errors (ValueError, OSError raised in roundlab.data) unless
    ``HYDRA_FULL_ERROR=1`` asks for the traceback. None for anything else (a bug)."""
    if isinstance(err, config.ConfigError):
        return f"config error: {err}"
    if isinstance(err, TrackingUnreachable):
        return f"tracking error: {err}"
    full_error = os.environ.get("HYDRA_FULL_ERROR") == "1"
    if isinstance(err, ValueError | OSError) and raised_in_data(err) and not full_error:
        return f"data error: {err}"
    return None


def raised_in_data(err: BaseException) -> bool:
    """Whether the traceback of ``err`` passes through the roundlab.data package."""
    data_dir = Path(__file__).parent / "data"
    frames = traceback.extract_tb(err.__traceback__)
    return any(Path(f.filename).is_relative_to(data_dir) for f in frames)


def stop_if_failed(result: RunResult) -> None:
    """A single run that did not finish exits non-zero, so scripts and CI see it."""
    if not result.ok:
        path = result.key.result_path(result.config["results_dir"])
        raise SystemExit(f"run {result.status}: {result.error} (result file {path})")


@hydra.main(config_path=str(paths.CONF_DIR), config_name="config", version_base="1.3")
def hydra_task(cfg: DictConfig) -> float:
    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    job_dir = Path(hc.runtime.output_dir)
    # Here too, not only in main(): joblib runs this task in worker processes.
    with interruption.interruptible():
        try:
            reused = resume.reuse(cfg, job_dir) if multirun else None
            sweep_dir = Path(hc.sweep.dir).absolute() if multirun else None
            result = reused or train(cfg, sweep_dir=sweep_dir)
        except interruption.Interrupted as err:
            callbacks.write_status(job_dir, KILLED, err.reason)
            raise
        except Exception as err:
            maximise = str(cfg.objective).partition("/")[2] in config.MAXIMISED
            return failed_before_training(err, job_dir, multirun, maximise)
    if not multirun:
        stop_if_failed(result)
    return job_return(cfg, job_dir, result)


def main() -> None:
    """The command line: an interruption ends the open sweep's MLflow parents KILLED and exits
    128 + the signal number with one line on stderr."""
    config.register_configs()
    with interruption.interruptible():
        try:
            hydra_task()
        except interruption.Interrupted as err:
            callbacks.end_tracking(KILLED)
            print(
                f"roundlab.train: {err.reason}; the run under way was recorded KILLED",
                file=sys.stderr,
                flush=True,
            )
            raise SystemExit(err.exit_code) from None


if __name__ == "__main__":
    # Run the importable copy of this module, so that the joblib launcher pickles the task by
    # reference to roundlab.train rather than by value from __main__.
    from roundlab.train import main as _main

    _main()
