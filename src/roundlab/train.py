"""Train one network on integer labels and evaluate it: ``train(cfg) -> RunResult``.

``python -m roundlab.train [overrides]`` runs one job, ``python -m roundlab.train -m ...`` a
sweep, ``python -m roundlab.train --cfg job`` prints the resolved config. Every run writes its
result file (finished or failed) and logs to MLflow. In a multirun a failing job never raises
out of the Hydra task, so the sweep goes on; it returns the worst objective value instead.
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import hydra  # noqa: E402  (TensorFlow reads TF_CPP_MIN_LOG_LEVEL when first imported)
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from hydra.types import RunMode  # noqa: E402
from omegaconf import DictConfig, OmegaConf  # noqa: E402

from roundlab import approaches, callbacks, config, guards, paths, resume  # noqa: E402
from roundlab.approaches.head import Approach  # noqa: E402
from roundlab.data import Dataset  # noqa: E402
from roundlab.engine import session  # noqa: E402
from roundlab.recording import Recording  # noqa: E402
from roundlab.results import FAILED, RunResult  # noqa: E402
from roundlab.runs import RunKey  # noqa: E402

log = logging.getLogger(__name__)


def train(cfg: DictConfig, sweep_dir: Path | None = None) -> RunResult:
    """Train and evaluate the run ``cfg`` describes, write its result file, log it to MLflow.

    Raises :class:`roundlab.config.ConfigError` for a config that cannot run, and lets data
    errors propagate (nothing is written then); any failure once training starts (no gradient,
    NaN loss, a crash) is returned as a FAILED result instead. ``sweep_dir`` makes the MLflow
    run a child of that sweep's parent run.
    """
    cfg = resolved(cfg)
    config.validate(cfg)
    device = session.start(cfg.seed, cfg.trainer.deterministic, cfg.trainer.mixed_precision)
    dataset = load_dataset(cfg)
    approach = approaches.build(cfg, dataset.train.y)
    guards.check_memory(cfg, dataset.n_features, approach.units, len(dataset.val))
    record = Recording(cfg, RunKey.from_config(cfg), str(device), sweep_dir)
    with record.capture() as result:
        fit_and_evaluate(cfg, dataset, approach, result)
    resume.stamp(record.result, cfg)
    return record.close()


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


def fit_and_evaluate(cfg: DictConfig, dataset: Dataset, approach: Approach, result: RunResult):
    """Train with Keras ``fit`` and fill ``result`` with the history, epochs and scores."""
    from roundlab import evaluation, models
    from roundlab.engine import single

    x = evaluation.standardized_features(dataset, cfg.trainer.standardize_features)
    y = evaluation.labels(dataset)
    network = models.build_mlp(dataset.n_features, cfg.model, approach)
    jit = config.jit_enabled(cfg, network.supports_jit)
    log.info("XLA compilation %s", "on" if jit else "off")
    fitted = single.fit(network, approach, x, y, cfg.trainer, config.early_stopping(cfg), jit)
    result.engine = {"name": "single", "jit_compile": jit}
    evaluation.fill_result(result, fitted, network, approach, x, y, dataset)


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
    """A bad value or missing data: no result file. A single run stops here (a config error in
    one line, without a traceback); a sweep counts the job as failed and goes on."""
    reason = str(err) if isinstance(err, config.ConfigError) else f"{type(err).__name__}: {err}"
    if not multirun:
        if isinstance(err, config.ConfigError):
            raise SystemExit(f"config error: {reason}") from err
        raise err
    log.error("job failed before training: %s", reason)
    callbacks.write_status(job_dir, FAILED, reason)
    return worst(maximise)


@hydra.main(config_path=str(paths.CONF_DIR), config_name="config", version_base="1.3")
def hydra_task(cfg: DictConfig) -> float:
    hc = HydraConfig.get()
    multirun = hc.mode == RunMode.MULTIRUN
    job_dir = Path(hc.runtime.output_dir)
    try:
        reused = resume.reuse(cfg, job_dir) if multirun else None
        result = reused or train(cfg, sweep_dir=Path(hc.sweep.dir).absolute() if multirun else None)
    except Exception as err:
        maximise = str(cfg.objective).partition("/")[2] in config.MAXIMISED
        return failed_before_training(err, job_dir, multirun, maximise)
    return job_return(cfg, job_dir, result)


def main() -> None:
    config.register_configs()
    hydra_task()


if __name__ == "__main__":
    # Run the importable copy of this module, so that the joblib launcher pickles the task by
    # reference to roundlab.train rather than by value from __main__.
    from roundlab.train import main as _main

    _main()
