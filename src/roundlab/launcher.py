"""What the vectorised Hydra launcher (``hydra/launcher=vectorized``, class in
``hydra_plugins.roundlab_vectorized_launcher``) does: a multirun's jobs that differ only in seed
and in the output activation's parameter train as one stacked program.

Each job still runs through Hydra's ``run_job`` (its output directory, ``.hydra`` files,
callbacks and ``JobReturn``), so sweepers and callbacks see what the basic launcher gives them;
for a stacked job the task only records the member's result. Jobs that cannot be stacked, and
jobs whose config fails validation, run the ordinary task function one at a time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, configure_log, filter_overrides, run_job, setup_globals
from hydra.types import TaskFunction
from omegaconf import DictConfig, open_dict

from roundlab import config
from roundlab.engine import grouping, vectorized

log = logging.getLogger(__name__)


def launch(
    launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
) -> list[JobReturn]:
    """Run the jobs of ``launcher`` (set up by Hydra: config, hydra_context, task_function,
    max_members): stacked groups first, then the jobs that train alone; returns in job order."""
    setup_globals()
    configure_log(launcher.config.hydra.hydra_logging, launcher.config.hydra.verbose)
    Path(str(launcher.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
    jobs = [_job_config(launcher, o, initial_job_idx + i) for i, o in enumerate(job_overrides)]
    cfgs = _training_configs(jobs)
    groups, alone = grouping.plan(cfgs, launcher.max_members)
    for line in grouping.describe(cfgs, groups, alone):
        log.info(line)
    returns: dict[int, JobReturn] = {}
    for members in groups:
        returns.update(_launch_group(launcher, jobs, [cfgs[i] for i in members], members))
    if alone:
        log.info("%d job(s) run one at a time through the ordinary path", len(alone))
    for i in alone:
        returns[i] = _run(launcher, jobs[i], launcher.task_function)
    return [returns[i] for i in range(len(jobs))]


def _job_config(launcher: Any, overrides: Sequence[str], idx: int) -> DictConfig:
    log.info(f"\t#{idx} : {' '.join(filter_overrides(overrides))}")
    sweep_config = launcher.hydra_context.config_loader.load_sweep_config(
        launcher.config, list(overrides)
    )
    with open_dict(sweep_config):
        sweep_config.hydra.job.id = idx
        sweep_config.hydra.job.num = idx
    return sweep_config


def _launch_group(
    launcher: Any, jobs: list[DictConfig], cfgs: list[DictConfig], members: list[int]
) -> dict[int, JobReturn]:
    try:
        trained = vectorized.train_group(cfgs)
    except Exception as err:  # before training (the data): each job fails the ordinary way
        log.error("group of %d could not start (%s): running its jobs alone", len(cfgs), err)
        return {i: _run(launcher, jobs[i], launcher.task_function) for i in members}
    return {i: _run(launcher, jobs[i], _member_task(trained, p)) for p, i in enumerate(members)}


def _run(launcher: Any, sweep_config: DictConfig, task: Callable[[DictConfig], float]) -> JobReturn:
    ret = run_job(
        hydra_context=launcher.hydra_context,
        task_function=task,
        config=sweep_config,
        job_dir_key="hydra.sweep.dir",
        job_subdir_key="hydra.sweep.subdir",
    )
    configure_log(launcher.config.hydra.hydra_logging, launcher.config.hydra.verbose)
    return ret


def _training_configs(jobs: list[DictConfig]) -> list[DictConfig | None]:
    """Each job's resolved training config (without the hydra node), or None when it fails
    validation: the ordinary task then reports the error as a single run would."""
    from roundlab.train import resolved

    out = []
    for job in jobs:
        cfg = job.copy()
        with open_dict(cfg):
            del cfg["hydra"]
        try:
            cfg = resolved(cfg)
            config.validate(cfg)
        except Exception:
            out.append(None)
            continue
        out.append(cfg)
    return out


def _member_task(trained: vectorized.TrainedGroup, position: int) -> TaskFunction:
    def task(cfg: DictConfig) -> float:
        from roundlab.train import job_return

        hc = HydraConfig.get()
        result = vectorized.record_member(trained, position, Path(hc.sweep.dir).absolute())
        return job_return(cfg, Path(hc.runtime.output_dir), result)

    return task
