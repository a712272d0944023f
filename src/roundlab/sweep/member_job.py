"""A stacked group's member as a Hydra job, without Hydra's per-job copies: :func:`run`.

Hydra's ``run_job`` sets the Hydra config twice (each a masked copy of the job's config),
deep-copies the job's config and its Hydra node, and writes the three ``.hydra`` files through
OmegaConf's pure-Python YAML emitter: about 45 ms a job on two busy cores, more than recording
the member it runs. A member's job does each of those once and no more: the Hydra config is
set once (the output directory written into it and into the job's config, as ``run_job`` does
by setting it again), the task's config is copied from the job's config leaving the Hydra node
out, the Hydra config in the ``JobReturn`` is the one just set (each job's own object), and
the ``.hydra`` files are the same text, emitted by libyaml with OmegaConf's own representers.

What a sweeper, a callback or a user sees is what ``run_job`` gives: the job's output
directory with ``.hydra/config.yaml``, ``hydra.yaml``, ``overrides.yaml`` and its log file
(``hydra.job_logging``), ``hydra.job.env_set`` and ``hydra.job.chdir`` honoured while the task
runs, ``on_job_start`` and ``on_job_end``, and a ``JobReturn`` with the same fields
(tests/engine/test_member_job.py compares both, file by file).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hydra import version
from hydra._internal.deprecation_warning import deprecation_warning
from hydra.core.hydra_config import HydraConfig
from hydra.core.utils import (
    JobReturn,
    JobRuntime,
    JobStatus,
    _flush_loggers,
    configure_log,
    env_override,
)
from hydra.types import HydraContext
from omegaconf import DictConfig, OmegaConf, open_dict, read_write

from roundlab.interruption import as_interruption
from roundlab.run.config import to_yaml


def run(
    hydra_context: HydraContext, config: DictConfig, task: Callable[[DictConfig], Any]
) -> JobReturn:
    """Run ``task`` as the Hydra job whose sweep config (with its ``hydra`` node) is
    ``config``, in its output directory under ``hydra.sweep.dir``/``hydra.sweep.subdir``."""
    callbacks = hydra_context.callbacks
    instance = HydraConfig.instance()
    before, cwd = instance.cfg, os.getcwd()
    instance.set_config(config)
    hydra_cfg = instance.cfg
    sweep = hydra_cfg.hydra.sweep
    job_dir = os.path.join(str(sweep.dir), str(sweep.subdir))
    output_dir = os.path.abspath(job_dir)
    for node in (config.hydra.runtime, hydra_cfg.hydra.runtime):
        with read_write(node), open_dict(node):
            node.output_dir = output_dir
    chdir = False
    try:
        chdir = _chdir(hydra_cfg.hydra.job.chdir)
        ret = JobReturn()
        ret.cfg = without_hydra(config)
        ret.hydra_cfg = hydra_cfg
        ret.overrides = OmegaConf.to_container(config.hydra.overrides.task)
        Path(output_dir).mkdir(parents=True, exist_ok=True)
        if chdir:
            os.chdir(output_dir)
            ret.working_dir = job_dir  # as run_job gives it: relative when the sweep dir is
        else:
            ret.working_dir = os.getcwd()
        configure_log(config.hydra.job_logging, config.hydra.verbose)
        if config.hydra.output_subdir is not None:
            saved = Path(output_dir) / str(config.hydra.output_subdir)
            saved.mkdir(parents=True, exist_ok=True)
            for name, part in (
                ("config.yaml", ret.cfg),
                ("hydra.yaml", hydra_cfg),
                ("overrides.yaml", config.hydra.overrides.task),
            ):
                (saved / name).write_text(to_yaml(part), encoding="utf-8")
        with env_override(hydra_cfg.hydra.job.env_set):
            callbacks.on_job_start(config=config, task_function=task)
            try:
                ret.return_value = task(ret.cfg)
                ret.status = JobStatus.COMPLETED
            except Exception as err:
                # a signal that library code turned into another error ends the job as the
                # signal would (the group records its members KILLED), not as a failed job
                interrupted = as_interruption(err)
                if interrupted is not None:
                    raise interrupted from err
                ret.return_value = err
                ret.status = JobStatus.FAILED
        ret.task_name = JobRuntime.instance().get("name")
        _flush_loggers()
        callbacks.on_job_end(config=config, job_return=ret)
        return ret
    finally:
        instance.cfg = before
        if chdir:
            os.chdir(cwd)


def _chdir(chdir: bool | None) -> bool:
    """``hydra.job.chdir``; unset, what ``run_job`` makes of it: no under ``version_base``
    1.2 or later, else yes, with Hydra's warning."""
    if chdir is not None:
        return bool(chdir)
    if version.base_at_least("1.2"):
        return False
    # Hydra's own warning (an error under HYDRA_DEPRECATION_WARNINGS_AS_ERRORS), as run_job's
    deprecation_warning(CHDIR_WARNING, stacklevel=3)
    return True


CHDIR_WARNING = (
    "Future Hydra versions will no longer change working directory at job runtime by default.\n"
    "See https://hydra.cc/docs/1.2/upgrades/1.1_to_1.2/changes_to_job_working_dir/ for more "
    "information."
)


def without_hydra(config: DictConfig) -> DictConfig:
    """The job's config without its ``hydra`` node, as ``run_job``'s deep copy less that node
    gives it (the schema's type and flags kept), without copying the node: the copy meets an
    empty stand-in where the node is (``deepcopy``'s memo), which is then deleted."""
    stand_in = {id(config._get_node("hydra")): OmegaConf.create({})}
    task_cfg = copy.deepcopy(config, stand_in)
    with read_write(task_cfg), open_dict(task_cfg):
        del task_cfg["hydra"]
    return task_cfg
