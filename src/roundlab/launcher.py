"""What the vectorised Hydra launcher (``hydra/launcher=vectorized``, class in
``hydra_plugins.roundlab_vectorized_launcher``) does: a multirun's jobs that differ only in seed
and in the output activation's parameter train as one stacked program.

Each job still runs through Hydra's ``run_job`` (its output directory, ``.hydra`` files,
callbacks and ``JobReturn``), so sweepers and callbacks see what the basic launcher gives them;
for a stacked job the task only records the member's result. Jobs that cannot be stacked, and
jobs whose config fails validation, run the ordinary task function one at a time.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# Hydra's own naming of a job's override_dirname (a private helper of the pinned hydra-core).
from hydra._internal.config_loader_impl import get_overrides_dirname
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override, OverrideType
from hydra.core.utils import JobReturn, configure_log, filter_overrides, run_job, setup_globals
from hydra.types import TaskFunction
from omegaconf import DictConfig, OmegaConf, open_dict

from roundlab import config, resume
from roundlab.engine import grouping, vectorized
from roundlab.interruption import Interrupted

log = logging.getLogger(__name__)


def launch(
    launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
) -> list[JobReturn]:
    """Run the jobs of ``launcher`` (set up by Hydra: config, hydra_context, task_function,
    max_members): reused jobs (:mod:`roundlab.resume`) first, never joining a group, then
    stacked groups, then the jobs that train alone; returns in job order."""
    setup_globals()
    configure_log(launcher.config.hydra.hydra_logging, launcher.config.hydra.verbose)
    Path(str(launcher.config.hydra.sweep.dir)).mkdir(parents=True, exist_ok=True)
    jobs = _job_configs(launcher, job_overrides, initial_job_idx)
    cfgs = _training_configs(jobs)
    reused = resume.reusable_jobs(cfgs)
    groups, alone = grouping.plan(cfgs, launcher.max_members, skip=reused)
    for line in grouping.describe(cfgs, groups, alone):
        log.info(line)
    returns: dict[int, JobReturn] = {}
    if reused:  # the ordinary task finds their result files and trains nothing
        log.info("%d job(s) reused: their result files have the same fingerprint", len(reused))
    for i in sorted(reused):
        returns[i] = _run(launcher, jobs[i], launcher.task_function)
    for members in groups:
        returns.update(_launch_group(launcher, jobs, [cfgs[i] for i in members], members))
    if alone:
        log.info("%d job(s) run one at a time through the ordinary path", len(alone))
    for i in alone:
        returns[i] = _run(launcher, jobs[i], launcher.task_function)
    return [returns[i] for i in range(len(jobs))]


def _job_configs(
    launcher: Any, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
) -> list[DictConfig]:
    """Each job's sweep config. Hydra composes the first job of every set of jobs whose overrides
    differ only in a member's own values (seed, learning rate, the activation's parameter); the
    others are that config with those values set, as composing them would give (tested):
    composition is most of a stacked sweep's own time."""
    parser = OverridesParser.create()
    composed: dict[tuple[str, ...], DictConfig] = {}
    out = []
    for idx, overrides in enumerate(job_overrides, start=initial_job_idx):
        log.info(f"\t#{idx} : {' '.join(filter_overrides(overrides))}")
        parsed = parser.parse_overrides(list(overrides))
        signature, values = _member_values(parsed)
        cfg = None if signature not in composed else derive(composed[signature], parsed, values)
        if cfg is None:
            cfg = launcher.hydra_context.config_loader.load_sweep_config(
                launcher.config, list(overrides)
            )
            composed.setdefault(signature, copy.deepcopy(cfg))
        with open_dict(cfg):
            cfg.hydra.job.id = idx
            cfg.hydra.job.num = idx
        out.append(cfg)
    return out


def _member_values(parsed: list[Override]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """``(signature, values)``: the overrides other than a member's own (``seed``,
    ``trainer.learning_rate`` and ``activation.<parameter>`` set to a plain value), and those
    values by key."""
    from roundlab.activations.catalogue import PARAMETER_NAMES

    own = {"seed", "trainer.learning_rate", *(f"activation.{p}" for p in PARAMETER_NAMES)}
    values, rest = {}, []
    for o in parsed:
        plain = o.type == OverrideType.CHANGE and o.package is None
        if plain and o.key_or_group in own and not o.is_sweep_override():
            values[o.key_or_group] = o.value()
        else:
            rest.append(o.input_line)
    return (*sorted(rest), "|", *sorted(values)), values


def derive(base: DictConfig, parsed: list[Override], values: dict[str, Any]) -> DictConfig | None:
    """``base`` (a composed sweep config) with ``values`` set and ``parsed`` as its task
    overrides; None when a key is not in ``base``, so the job is composed by Hydra instead."""
    if any(OmegaConf.select(base, key, default=_ABSENT) is _ABSENT for key in values):
        return None
    cfg = copy.deepcopy(base)
    for key, value in values.items():
        OmegaConf.update(cfg, key, value, merge=False)
    names = cfg.hydra.job.config.override_dirname
    cfg.hydra.overrides.task = [o.input_line for o in parsed]
    cfg.hydra.job.override_dirname = get_overrides_dirname(
        overrides=parsed,
        exclude_keys=list(names.exclude_keys),
        item_sep=names.item_sep,
        kv_sep=names.kv_sep,
    )
    return cfg


_ABSENT = object()


def _launch_group(
    launcher: Any, jobs: list[DictConfig], cfgs: list[DictConfig], members: list[int]
) -> dict[int, JobReturn]:
    """Train the group, then record its members one job at a time. A SIGINT or SIGTERM
    (:class:`Interrupted`) records every member not yet recorded KILLED, then stops the sweep
    (the member being recorded records itself, in ``Recording.capture``)."""
    sweep_dir = Path(str(launcher.config.hydra.sweep.dir)).absolute()
    try:
        trained = vectorized.train_group(cfgs)
    except Interrupted as err:
        vectorized.record_killed(cfgs, err.reason, sweep_dir)
        raise
    except Exception as err:  # the data, or a crash: each job runs (and fails) the ordinary way
        log.error("group of %d could not train (%s): running its jobs alone", len(cfgs), err)
        return {i: _run(launcher, jobs[i], launcher.task_function) for i in members}
    returns: dict[int, JobReturn] = {}
    try:
        for p, i in enumerate(members):
            returns[i] = _run(launcher, jobs[i], _member_task(trained, p))
    except Interrupted as err:
        vectorized.record_killed(cfgs[len(returns) + 1 :], err.reason, sweep_dir)
        raise
    return returns


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
        # As run_job will: the default results_dir is read from this multirun's Hydra config.
        HydraConfig.instance().set_config(job)
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
