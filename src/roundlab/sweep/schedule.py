"""What becomes of each of a multirun's jobs: reused, trained in a stacked group, or trained
alone.

The launcher (:mod:`roundlab.sweep.launcher`) and ``python -m roundlab.sweep --dry-run``
(:mod:`roundlab.sweep.preview`) both call :func:`training_configs` and :func:`schedule` on the
configs of :func:`roundlab.sweep.jobs.job_configs`, so the dry run groups exactly as the
launcher will. Validating a config imports the activations, hence TensorFlow: this runs in the
multirun's process, never in the sweep's (:mod:`roundlab.sweep.decide`).
"""

from __future__ import annotations

from collections.abc import Sequence

from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from roundlab.run.config import resolve
from roundlab.run.validate import validate
from roundlab.sweep import grouping
from roundlab.sweep.member_job import without_hydra
from roundlab.sweep.resume import reusable_jobs


def training_configs(jobs: list[DictConfig]) -> list[DictConfig | None]:
    """Each job's resolved training config (without the hydra node), or None when it fails
    validation: the ordinary task then reports the error as a single run would."""
    out = []
    instance = HydraConfig.instance()
    before = instance.cfg
    try:
        for job in jobs:
            # As run_job will: the default results_dir is read from this multirun's Hydra config.
            _read_hydra_from(instance, job)
            try:
                cfg = resolve(without_hydra(job), copy=False)
                validate(cfg)
            except Exception:
                out.append(None)
                continue
            out.append(cfg)
    finally:
        instance.cfg = before  # as run_job leaves it
    return out


def _read_hydra_from(instance: HydraConfig, job: DictConfig) -> None:
    """What ``instance.set_config(job)`` sets up for resolving ``job``: ``HydraConfig.get()``
    gives its ``hydra`` node, read-only, within ``job`` (so the node's own interpolations reach
    the job's keys). ``set_config`` gives a masked copy of that node instead, which resolving
    only reads: 120 more OmegaConf nodes per job, made and then collected, 1.5 to 4 ms of CPU
    in a job's roughly 230. ``run_job`` (and a member's job) still sets its own copy."""
    OmegaConf.set_readonly(job.hydra, True)
    instance.cfg = job


def schedule(
    cfgs: Sequence[DictConfig | None], max_members: int
) -> tuple[set[int], list[list[int]], list[int]]:
    """``(reused, groups, alone)``: the jobs whose result files are kept
    (:mod:`roundlab.sweep.resume`), never joining a group; the stacked groups of the others; the
    jobs that train alone (:func:`roundlab.sweep.grouping.plan`)."""
    reused = reusable_jobs(cfgs)
    groups, alone = grouping.plan(cfgs, max_members, skip=reused)
    return reused, groups, alone
