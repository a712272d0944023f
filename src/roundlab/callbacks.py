"""The multirun's bookkeeping: each job leaves a status file in its output directory, and a
Hydra callback (registered in conf/config.yaml under ``hydra.callbacks``) prints one line at the
end of the sweep, ``sweep: N succeeded, M failed``, and closes the sweep's MLflow parent runs.

Status files, not in-memory state, because joblib and SLURM jobs run in other processes. A job
directory of this sweep without a status file (a job killed before it could write one) counts
as failed.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

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


class SweepSummary(Callback):
    def __init__(self) -> None:
        self._start = 0.0

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        # File times can be coarser than time.time(): a second of slack.
        self._start = time.time() - 1.0
        for stale in Path(config.hydra.sweep.dir).rglob(STATUS_FILE):
            stale.unlink()  # from an earlier sweep into the same directory
        if config.tracking.enabled:
            from roundlab import tracking

            try:
                tracking.prepare_store(config.tracking.uri)
            except Exception as err:  # the jobs will each report it; the sweep still runs
                log.warning("MLflow store not reachable: %s", err)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        records = job_statuses(sweep_dir, self._start)
        ok = sum(r["status"] == FINISHED for r in records)
        failed = len(records) - ok
        if config.tracking.enabled:
            from roundlab import tracking

            try:
                tracking.close_parents(config.tracking.uri, sweep_dir)
            except Exception as err:
                log.warning("could not close the sweep's MLflow parent runs: %s", err)
        print(f"sweep: {ok} succeeded, {failed} failed", flush=True)
