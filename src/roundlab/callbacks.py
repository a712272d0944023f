"""The multirun's bookkeeping: each job leaves a status file in its output directory, and a
Hydra callback (registered in conf/config.yaml under ``hydra.callbacks``) checks the tracking
server and starts the sweep's MLflow bookkeeping before the first job (:func:`begin_tracking`),
after every job prints the sweep's progress (:mod:`roundlab.progress`: jobs done of planned,
failures, ETA; left to ``roundlab.sweep`` when it runs the multirun, as it reports its whole
plan), and at the end prints one line, ``sweep: N succeeded, M failed (k of them reused)``,
closes the sweep's MLflow parent runs and, with ``fail_on_failed_jobs=true``, exits 1 when a job
did not finish.

Status files, not in-memory state, because joblib and SLURM jobs run in other processes. A job
directory of this sweep without a status file (a job killed before it could write one) counts
as failed.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from roundlab import resume
from roundlab.progress import QUIET_ENV, Progress
from roundlab.results import FAILED, FINISHED

log = logging.getLogger(__name__)

STATUS_FILE = "roundlab_status.json"


def write_status(
    job_dir: Path, status: str, error: str | None = None, result_file: Path | None = None
) -> None:
    job_dir = Path(job_dir)
    job_dir.mkdir(parents=True, exist_ok=True)
    record = {
        "status": status,
        "error": error,
        "result_file": str(result_file) if result_file else None,
    }
    (job_dir / STATUS_FILE).write_text(json.dumps(record) + "\n")


def job_statuses(sweep_dir: Path, since: float = 0.0) -> list[dict[str, Any]]:
    """One record per job of the sweep started at ``since`` (a time.time() value): its status
    file, or a failure for a job directory that has none."""
    sweep_dir = Path(sweep_dir)
    records = [json.loads(p.read_text()) for p in sorted(sweep_dir.rglob(STATUS_FILE))]
    for overrides in sorted(sweep_dir.rglob(".hydra/overrides.yaml")):
        job_dir = overrides.parent.parent
        if overrides.stat().st_mtime >= since and not (job_dir / STATUS_FILE).is_file():
            records.append({"status": FAILED, "error": f"{job_dir}: no status file"})
    return records


def finished_jobs(sweep_dir: Path) -> tuple[int, int]:
    """``(done, failed)``: the jobs that left a status file so far (running jobs have none)."""
    records = [json.loads(p.read_text()) for p in Path(sweep_dir).rglob(STATUS_FILE)]
    return len(records), sum(r["status"] != FINISHED for r in records)


def planned_jobs(config: DictConfig) -> int | None:
    """How many jobs the basic sweeper makes of the task overrides (the product of the sweep
    values); None when they do not parse as such."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        parsed = OverridesParser.create().parse_overrides(list(config.hydra.overrides.task))
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
            self._progress = Progress(total, "multirun")
        if config.tracking.enabled:
            begin_tracking(config.tracking, Path(config.hydra.sweep.dir).absolute())

    def on_job_end(self, config: DictConfig, job_return: Any, **kwargs: Any) -> None:
        if self._progress is not None:
            self._progress.update(*finished_jobs(Path(config.hydra.sweep.dir)))

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        records = job_statuses(sweep_dir, self._start)
        ok = sum(r["status"] == FINISHED for r in records)
        failed = len(records) - ok
        reused = resume.reused_jobs(sweep_dir, self._start)
        end_tracking("FINISHED")
        print(f"sweep: {ok} succeeded, {failed} failed ({reused} of them reused)", flush=True)
        if failed and config.fail_on_failed_jobs:
            raise SystemExit(f"sweep: {failed} job(s) did not finish (fail_on_failed_jobs=true)")


# (uri, sweep dir) of the sweep this process runs, whose MLflow parents are still open.
_open_sweeps: list[tuple[str, Path]] = []


def begin_tracking(tracking_cfg: DictConfig, sweep_dir: Path) -> None:
    """Before any job: check the tracking server once (a dead one fails the sweep or switches
    tracking off, per ``tracking.on_unreachable``), give the sweep its own MLflow parents and
    mark runs that killed processes left RUNNING as KILLED."""
    from roundlab import stale_runs, tracking, tracking_server

    try:
        if not tracking_server.usable(tracking_cfg):
            return
    except tracking_server.TrackingUnreachable as err:
        raise SystemExit(f"tracking error: {err}") from None
    uri = str(tracking_cfg.uri)
    try:
        identity = tracking.begin_sweep(sweep_dir)
        tracking.prepare_store(uri)
        stale_runs.mark_killed(tracking.client(uri), sweep_dir, identity[tracking.SWEEP_ID_TAG])
    except Exception as err:  # the jobs will each report it; the sweep still runs
        log.warning("MLflow store not reachable: %s", err)
        return
    _open_sweeps.append((uri, sweep_dir))


def end_tracking(status: str) -> None:
    """End the open sweep's MLflow parents with ``status`` (FINISHED, or KILLED when the sweep
    is interrupted) and their job counts."""
    from roundlab import tracking

    while _open_sweeps:
        uri, sweep_dir = _open_sweeps.pop()
        try:
            tracking.close_parents(uri, sweep_dir, status)
        except Exception as err:
            log.warning("could not close the sweep's MLflow parent runs: %s", err)
