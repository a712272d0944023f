"""The Hydra callback of every multirun (registered in conf/config.yaml under
``hydra.callbacks``).

Before the first job it checks the tracking server and starts the sweep's MLflow bookkeeping
(:func:`begin_tracking`); after every job it prints the sweep's progress
(:mod:`roundlab.sweep.progress`: jobs done of planned, failures, ETA; left to
``roundlab.sweep`` when it runs the multirun, as it reports its whole plan); at the end it
prints one line, ``sweep: N succeeded, M failed (k of them reused)`` (with ``, E expected
failures (hard_round control)`` after ``failed`` when there are), closes the sweep's MLflow
parent runs and, with ``fail_on_failed_jobs=true``, exits 1 when a job failed other than
expectedly. It counts jobs from their status files (:mod:`roundlab.run.status`) by the rule of
:func:`roundlab.results.expected_failure` (:func:`roundlab.sweep.progress.tally`). Its
progress is plain lines even on a terminal: the jobs' own log lines share it.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path
from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from roundlab.errors import ConfigError, TrackingUnreachable
from roundlab.run.status import STATUS_FILE, finished_records, job_statuses
from roundlab.sweep import job_list
from roundlab.sweep.housekeeping import reused_jobs
from roundlab.sweep.progress import QUIET_ENV, Progress, tally
from roundlab.tracking import parents, server, stale_runs, store

log = logging.getLogger(__name__)


def planned_jobs(config: DictConfig) -> int | None:
    """How many jobs the basic sweeper makes of the config's ``hydra.sweeper.params`` (an
    experiment's grid) and the task overrides after them, a key of both taking the task's
    value, as the sweeper does (the product of the sweep values); None when they do not parse
    as such. With ``sweep.jobs=<file>`` the sweeper runs the jobs the file lists instead."""
    listed = OmegaConf.select(config, job_list.KEY, default=None)
    if listed is not None:
        try:
            return len(job_list.read(Path(str(listed))))
        except ConfigError:  # the sweeper refuses it with this message, before any job runs
            return None
    params = OmegaConf.select(config, "hydra.sweeper.params") or {}
    arguments = [f"{k}={v}" for k, v in params.items()] + list(config.hydra.overrides.task)
    try:
        parsed = OverridesParser.create().parse_overrides(arguments)
        batches = BasicSweeper.split_arguments(parsed, None)
    except Exception:  # another sweeper's syntax: no total to show
        return None
    return sum(len(batch) for batch in batches)


class SweepSummary(Callback):
    def __init__(self) -> None:
        self._start = 0.0
        self._progress: Progress | None = None

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        # File times can be coarser than time.time(): a second of slack.
        self._start = time.time() - 1.0
        for stale in Path(config.hydra.sweep.dir).rglob(STATUS_FILE):
            stale.unlink()  # from an earlier sweep into the same directory
        total = planned_jobs(config)
        if total and not os.environ.get(QUIET_ENV):
            self._progress = Progress(total, "multirun", bar=False)
        if config.tracking.enabled:
            begin_tracking(config.tracking, Path(config.hydra.sweep.dir).absolute())

    def on_job_end(self, config: DictConfig, job_return: Any, **kwargs: Any) -> None:
        if self._progress is not None:
            counts = tally(finished_records(Path(config.hydra.sweep.dir)))
            self._progress.update(counts.done, counts.failed, counts.expected)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        counts = tally(job_statuses(sweep_dir, self._start))
        reused = reused_jobs(sweep_dir, self._start)
        end_tracking("FINISHED")
        print(
            f"sweep: {counts.finished} succeeded, {counts.failures()} ({reused} of them reused)",
            flush=True,
        )
        if counts.failed and config.fail_on_failed_jobs:
            raise SystemExit(
                f"sweep: {counts.failed} job(s) did not finish (fail_on_failed_jobs=true)"
            )


# (uri, sweep dir) of the sweep this process runs, whose MLflow parents are still open.
_open_sweeps: list[tuple[str, Path]] = []


def begin_tracking(tracking_cfg: DictConfig, sweep_dir: Path) -> None:
    """Before any job: check the tracking server once (a dead one fails the sweep or switches
    tracking off, per ``tracking.on_unreachable``), give the sweep its own MLflow parents and
    mark runs that killed processes left RUNNING as KILLED."""
    try:
        if not server.usable(tracking_cfg):
            return
    except TrackingUnreachable as err:
        raise SystemExit(f"tracking error: {err}") from None
    uri = str(tracking_cfg.uri)
    try:
        identity = parents.begin_sweep(sweep_dir)
        store.prepare_store(uri)
        stale_runs.mark_killed(store.client(uri), sweep_dir, identity[parents.SWEEP_ID_TAG])
    except Exception as err:  # the jobs will each report it; the sweep still runs
        log.warning("MLflow store not reachable: %s", err)
        return
    _open_sweeps.append((uri, sweep_dir))


def end_tracking(status: str) -> None:
    """End the open sweep's MLflow parents with ``status`` (FINISHED, or KILLED when the sweep
    is interrupted) and their job counts."""
    while _open_sweeps:
        uri, sweep_dir = _open_sweeps.pop()
        try:
            parents.close_parents(uri, sweep_dir, status)
        except Exception as err:
            log.warning("could not close the sweep's MLflow parent runs: %s", err)
