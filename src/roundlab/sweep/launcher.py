"""What the vectorised Hydra launcher (``hydra/launcher=vectorized``, class in
``hydra_plugins.roundlab_vectorized_launcher``) does: a multirun's jobs that differ only in seed
and in the output activation's parameter train as one stacked program.

Each job still runs as a Hydra job (its output directory, ``.hydra`` files, callbacks and
``JobReturn``), so sweepers and callbacks see what the basic launcher gives them: a stacked
group's member through :func:`roundlab.sweep.member_job.run` (``run_job``'s steps without its
per-job copies), whose task only records the member's result, the others through ``run_job``.
Jobs that cannot be stacked, and jobs whose config fails validation, run the ordinary task
function one at a time. Jobs not on the multirun's allow-list (``sweep.only``,
:func:`roundlab.sweep.resume.wanted`) are dropped before any of this: no output directory, no
result, no return.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import JobReturn, configure_log, run_job, setup_globals
from hydra.types import TaskFunction
from omegaconf import DictConfig, OmegaConf

from roundlab import paths
from roundlab.errors import WriteFailed
from roundlab.interruption import Interrupted, as_interruption, carried, checkpoint
from roundlab.run.exits import failed_before_training, job_return, maximised
from roundlab.run.recording import Recording
from roundlab.sweep import grouping, member_job, queue, vectorized
from roundlab.sweep.jobs import job_configs
from roundlab.sweep.resume import wanted
from roundlab.sweep.schedule import schedule, training_configs
from roundlab.tracking import writer

log = logging.getLogger(__name__)


def launch(
    launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
) -> list[JobReturn]:
    """Run the jobs of ``launcher`` (set up by Hydra: config, hydra_context, task_function,
    max_members) on its allow-list: reused jobs (:mod:`roundlab.sweep.resume`) first, never
    joining a group, then stacked groups, then the jobs that train alone; returns in job order.

    A queue worker's returns keep no configs once their jobs ended (``cfg`` and ``hydra_cfg``
    None; every callback has seen them): Hydra's basic sweeper holds every batch's returns until
    the multirun ends, and a worker runs hundreds of jobs, whose configs (millions of objects)
    each garbage collection walked again, about a tenth of a worker's time."""
    setup_globals()
    configure_log(launcher.config.hydra.hydra_logging, launcher.config.hydra.verbose)
    Path(str(launcher.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
    loader, sweep_config = launcher.hydra_context.config_loader, launcher.config
    jobs = job_configs(
        lambda overrides: loader.load_sweep_config(sweep_config, overrides),
        job_overrides,
        initial_job_idx,
        launcher.composed,
    )
    kept = [job for job in jobs if wanted(job)]
    if len(kept) < len(jobs):
        log.info("%d of %d job(s) dropped: not on sweep.only", len(jobs) - len(kept), len(jobs))
    jobs = kept
    cfgs = training_configs(jobs)
    reused, groups, alone = schedule(cfgs, launcher.max_members)
    for line in grouping.describe(cfgs, groups, alone):
        log.info(line)
    returns: dict[int, JobReturn] = {}
    if reused:  # the ordinary task finds their result files and trains nothing
        log.info("%d job(s) reused: their result files have the same fingerprint", len(reused))
    for i in sorted(reused):
        returns[i] = _run(launcher, jobs[i], launcher.task_function)
    returns.update(launcher.train_jobs(jobs, cfgs, groups, alone))
    ordered = [returns[i] for i in range(len(jobs))]
    if OmegaConf.select(sweep_config, queue.KEY):
        for ret in ordered:
            ret.cfg = ret.hydra_cfg = None
    return ordered


def in_process(
    launcher: Any,
    jobs: Sequence[DictConfig],
    cfgs: Sequence[DictConfig | None],
    groups: list[list[int]],
    alone: list[int],
) -> dict[int, JobReturn]:
    """Train the stacked groups, then the jobs that train alone, in this process (the submitit
    variant hands them to jobs instead: :mod:`roundlab.sweep.cluster`)."""
    returns: dict[int, JobReturn] = {}
    for members in groups:
        returns.update(_launch_group(launcher, jobs, [cfgs[i] for i in members], members))
    if alone:
        log.info("%d job(s) run one at a time through the ordinary path", len(alone))
    for i in alone:
        returns[i] = _run(launcher, jobs[i], launcher.task_function)
    return returns


def _launch_group(
    launcher: Any,
    jobs: Sequence[DictConfig] | Mapping[int, DictConfig],
    cfgs: list[DictConfig],
    members: list[int],
) -> dict[int, JobReturn]:
    """Train the group, then record its members one job at a time. A SIGINT or SIGTERM
    (:class:`Interrupted`) records KILLED every member whose record is not closed, wherever it
    landed (training, between members, inside Hydra's run_job before the member's recording,
    in it, while closing it), then stops the sweep. A
    results_dir it cannot write to trains nothing: each job runs the ordinary way, which fails
    before training."""
    sweep_dir = Path(str(launcher.config.hydra.sweep.dir)).absolute()
    try:
        paths.check_writable(Path(cfgs[0].results_dir), "results_dir")
    except WriteFailed:
        return {i: _run(launcher, jobs[i], launcher.task_function) for i in members}
    try:
        trained = vectorized.train_group(cfgs)
    except Interrupted as err:
        _record_killed(err, cfgs, sweep_dir)
    except Exception as err:  # the data, or a crash: each job runs (and fails) the ordinary way
        if carried(err) is not None:  # not when it carries a signal: see _record_killed
            _record_killed(err, cfgs, sweep_dir)
        log.error("group of %d could not train (%s): running its jobs alone", len(cfgs), err)
        return {i: _run(launcher, jobs[i], launcher.task_function) for i in members}
    returns: dict[int, JobReturn] = {}
    try:
        for p, i in enumerate(members):
            if returns:
                checkpoint("between members")
            returns[i] = member_job.run(launcher.hydra_context, jobs[i], _member_task(trained, p))
            configure_log(launcher.config.hydra.hydra_logging, launcher.config.hydra.verbose)
    except Interrupted as err:
        _record_killed(err, cfgs, sweep_dir, trained.recordings)
    except Exception as err:
        if carried(err) is None:
            raise
        _record_killed(err, cfgs, sweep_dir, trained.recordings)
    # The members' MLflow writes went on in the background while the next member was recorded;
    # they are complete before the next group trains, so a process killed outright (SIGKILL,
    # out of memory) loses at most this group's MLflow records, never a group before it.
    writer.flush()
    return returns


def _record_killed(
    err: BaseException,
    cfgs: list[DictConfig],
    sweep_dir: Path,
    recordings: dict[int, Recording] | None = None,
) -> NoReturn:
    """Record KILLED the group's members not yet recorded, then let the interruption that
    ``err`` is, or carries, go on up. One that library code turned into another error is still
    an interruption: taken for a crash, the group's jobs would run alone, the first training
    until the signal came again and the others never recorded."""
    interrupted = as_interruption(err)
    assert interrupted is not None
    vectorized.record_killed(cfgs, interrupted.reason, sweep_dir, recordings)
    raise interrupted


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


def _member_task(trained: vectorized.TrainedGroup, position: int) -> TaskFunction:
    def task(cfg: DictConfig) -> float:
        checkpoint("member job")
        hc = HydraConfig.get()
        job_dir = Path(hc.runtime.output_dir)
        try:
            result = vectorized.record_member(trained, position, Path(hc.sweep.dir).absolute())
        except WriteFailed as err:  # no result file: the job fails, as a job trained alone does
            return failed_before_training(err, job_dir, True, maximised(cfg.objective))
        return job_return(cfg.objective, job_dir, result)

    return task
