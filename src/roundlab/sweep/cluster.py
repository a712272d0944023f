"""Stacked groups as cluster jobs: what ``hydra/launcher=vectorized_submitit_slurm`` (and
``vectorized_submitit_local``, the same on this machine) does with the groups the vectorised
launcher forms.

Each stacked group becomes ONE submitit job (on SLURM, one task of an array job, at most
``array_parallelism`` running at once) that does what the in-process launcher does with it
(:func:`roundlab.sweep.launcher._launch_group`: train the group, record each member as its
Hydra job), and each job that trains alone becomes a job of its own, so no training
runs where the sweep was launched (a login node, often without a GPU). Reused jobs and jobs
whose config fails validation stay in the launching process: they train nothing, and a job
would pay a TensorFlow import (about 20 s on 2 cores) to find that out. All jobs share
results_dir, the sweep dir and the tracking store, so these must be on a file system (or a
server) every node sees.

The launcher waits for every job. A job that raises or dies (out of memory, killed, timed out)
leaves its members recorded FAILED, with the job's reason, in result files and MLflow runs
written here, except the members it recorded itself before it ended; the other jobs go on. A
SIGINT or SIGTERM to the launcher cancels every job (each job records KILLED what it was
training, as an interrupted in-process group does) and records KILLED the members no job
recorded. A rerun reuses every run a job finished, through the ordinary resume.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.core.singleton import Singleton
from hydra.core.utils import JobReturn, configure_log, setup_globals
from hydra.types import TaskFunction
from omegaconf import DictConfig

from roundlab import results
from roundlab.interruption import Interrupted, interruptible
from roundlab.results import FAILED, RunResult
from roundlab.run.exits import job_return
from roundlab.run.recording import Recording
from roundlab.runs import RunKey
from roundlab.sweep import vectorized

# The launcher's workers, shared with the in-process path so a job does exactly what it does.
from roundlab.sweep.launcher import _launch_group, _run

log = logging.getLogger(__name__)

# How long an interrupted launcher waits for cancelled jobs to record their own members KILLED
# (SLURM gives a cancelled job 30 s, its default KillWait, before SIGKILL).
CANCEL_GRACE_S = 45.0
# Keys of the launcher config submitit takes without the executor's prefix (hydra-submitit's
# BaseQueueConf); every other key is executor-specific (slurm_partition, ...).
GENERIC_KEYS = {"timeout_min", "cpus_per_task", "gpus_per_node", "mem_gb", "name"}
GENERIC_KEYS |= {"stderr_to_stdout", "tasks_per_node", "nodes"}


@dataclass
class Unit:
    """What one submitted job runs: the jobs of ``members`` (by job index), as one stacked
    group when ``cfgs`` holds their resolved configs, else the single job trained alone."""

    members: list[int]
    cfgs: list[DictConfig] | None


class UnitJob:
    """The callable submitit pickles and runs in the job's process: it brings back Hydra's
    singletons (the config store, the sweep's HydraConfig) as the launching process had them,
    then trains and records like the in-process launcher, with SIGINT and SIGTERM recorded
    KILLED. Returns each member's JobReturn by job index."""

    def __init__(
        self, launcher: Any, jobs: Mapping[int, DictConfig], unit: Unit, state: dict
    ) -> None:
        self.launcher, self.jobs, self.unit, self.state = launcher, jobs, unit, state

    def __call__(self) -> dict[int, JobReturn]:
        Singleton.set_state(self.state)
        setup_globals()
        hydra_cfg = self.launcher.config.hydra
        configure_log(hydra_cfg.hydra_logging, hydra_cfg.verbose)
        launcher, unit = self.launcher, self.unit
        with interruptible():
            if unit.cfgs is None:
                i = unit.members[0]
                return {i: _run(launcher, self.jobs[i], launcher.task_function)}
            return _launch_group(launcher, self.jobs, unit.cfgs, unit.members)


def executor_parameters(params: Mapping[str, Any], cluster: str) -> dict[str, Any]:
    """submitit's names for the launcher's keys (hydra-submitit-launcher's convention): the
    generic ones as they are, the others prefixed with the executor (``partition`` ->
    ``slurm_partition``); unset (None) keys are left to submitit's defaults."""
    return {
        key if key in GENERIC_KEYS else f"{cluster}_{key}": value
        for key, value in params.items()
        if value is not None
    }


def launch_units(
    launcher: Any,
    jobs: Sequence[DictConfig],
    cfgs: Sequence[DictConfig | None],
    groups: list[list[int]],
    alone: list[int],
) -> dict[int, JobReturn]:
    """Submit every group and every job that trains alone (``launcher``: the submitit variant
    of the vectorised launcher, with ``cluster``, ``submitit_folder`` and ``params``), wait for
    all of them and return each job's JobReturn; jobs failing validation run here."""
    import submitit  # only when a sweep is launched: plugin discovery stays fast

    units = [Unit(m, [cfgs[i] for i in m]) for m in groups]
    units += [Unit([i], None) for i in alone if cfgs[i] is not None]
    returns = {i: _run(launcher, jobs[i], launcher.task_function) for i in alone if cfgs[i] is None}
    if not units:
        return returns
    executor = submitit.AutoExecutor(folder=launcher.submitit_folder, cluster=launcher.cluster)
    executor.update_parameters(**executor_parameters(launcher.params, launcher.cluster))
    sweep_dir = Path(str(launcher.config.hydra.sweep.dir)).absolute()
    state = Singleton.get_state()
    # File times can be coarser than time.time(): a second of slack.
    since = time.time() - 1.0
    with executor.batch():
        handles = [
            executor.submit(UnitJob(launcher, {i: jobs[i] for i in u.members}, u, state))
            for u in units
        ]
    log.info("%d job(s) submitted through submitit (%s)", len(handles), launcher.cluster)
    done: set[int] = set()
    try:
        for n, (unit, handle) in enumerate(zip(units, handles, strict=True)):
            try:
                returns.update(handle.result())
            except submitit.core.utils.UncompletedJobError as err:
                reason = f"cluster job {handle.job_id} failed: {_last_line(err)}"
                log.error("%s (members: %s)", reason, unit.members)
                for i, cfg in zip(unit.members, _member_cfgs(unit, cfgs), strict=True):
                    task = _settled_task(cfg, reason, since, sweep_dir, _engine(unit))
                    returns[i] = _run(launcher, jobs[i], task)
            done.add(n)
    except Interrupted as err:
        _cancel([h for n, h in enumerate(handles) if n not in done])
        for n, unit in enumerate(units):
            missing = [c for c in _member_cfgs(unit, cfgs) if _recorded(c, since) is None]
            if n not in done and missing:
                vectorized.record_killed(missing, err.reason, sweep_dir)
        raise
    return returns


def _member_cfgs(unit: Unit, cfgs: Sequence[DictConfig | None]) -> list[DictConfig]:
    return unit.cfgs if unit.cfgs is not None else [cfgs[unit.members[0]]]


def _engine(unit: Unit) -> dict[str, Any]:
    """The ``engine`` of a member its job did not record: what the job would have trained."""
    if unit.cfgs is None:
        return {"name": "single"}
    return {"name": "vectorized", "group_size": len(unit.members)}


def _last_line(err: Exception) -> str:
    """The error's last non-empty line: a failed job's message ends with its exception."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[-1] if lines else type(err).__name__


def _cancel(handles: list[Any]) -> None:
    """Cancel the jobs still under way and give them :data:`CANCEL_GRACE_S` to record their
    members KILLED (SLURM's scancel, submitit's local SIGINT: each job's handler records)."""
    for handle in handles:
        try:
            handle.cancel(check=False)
        except Exception as err:  # a job that already ended
            log.warning("cluster job %s not cancelled: %s", handle.job_id, err)
    deadline = time.monotonic() + CANCEL_GRACE_S
    while time.monotonic() < deadline and not all(h.done() for h in handles):
        time.sleep(1.0)


def _recorded(cfg: DictConfig, since: float) -> RunResult | None:
    """The member's result file when a job wrote it after ``since``, else None."""
    path = RunKey.from_config(cfg).result_path(cfg.results_dir)
    try:
        return results.read(path) if path.stat().st_mtime >= since else None
    except (OSError, ValueError):  # none, or cut off as the job died
        return None


def _settled_task(
    cfg: DictConfig, reason: str, since: float, sweep_dir: Path, engine: dict[str, Any]
) -> TaskFunction:
    """The Hydra task of a member whose job ended without returning: the record the job left,
    or a FAILED one with ``reason`` (result file and MLflow run)."""

    def task(job_cfg: DictConfig) -> float:
        job_dir = Path(HydraConfig.get().runtime.output_dir)
        result = _recorded(cfg, since) or record_failed(cfg, reason, sweep_dir, engine)
        return job_return(cfg.objective, job_dir, result)

    return task


def record_failed(
    cfg: DictConfig, reason: str, sweep_dir: Path, engine: dict[str, Any]
) -> RunResult:
    """Record FAILED, with ``reason``, a member whose job died: a result file and an MLflow
    run, as a failure inside a job would leave."""
    record = Recording(cfg, RunKey.from_config(cfg), None, sweep_dir, track=False)
    record.result.engine = dict(engine)
    record.start_tracking()
    record.result.status, record.result.error = FAILED, reason
    return record.close()
