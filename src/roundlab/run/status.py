"""The status file each job of a multirun leaves in its Hydra output directory.

Files, not in-memory state, because joblib and SLURM jobs run in other processes: the sweep's
callback and progress read them from the sweep directory. A job directory without a status
file (a job killed before it could write one) counts as failed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from roundlab.paths import atomic_write
from roundlab.results import FAILED

STATUS_FILE = "roundlab_status.json"
# A job of a multirun's cross product that is not on its allow-list (``sweep.only``): it ran
# nothing and wrote no result, so it is neither a success nor a failure and is not counted.
SKIPPED = "SKIPPED"


def write_status(
    job_dir: Path, status: str, error: str | None = None, result_file: Path | None = None
) -> None:
    record = {
        "status": status,
        "error": error,
        "result_file": str(result_file) if result_file else None,
    }
    # whole or absent: the sweep's progress reads status files while jobs write them
    atomic_write(Path(job_dir) / STATUS_FILE, json.dumps(record) + "\n")


def job_statuses(sweep_dir: Path, since: float = 0.0) -> list[dict[str, Any]]:
    """One record per job of the sweep started at ``since`` (a time.time() value): its status
    file, or a failure for a job directory that has none; skipped jobs are left out."""
    sweep_dir = Path(sweep_dir)
    records = [json.loads(p.read_text()) for p in sorted(sweep_dir.rglob(STATUS_FILE))]
    records = [r for r in records if r["status"] != SKIPPED]
    for overrides in sorted(sweep_dir.rglob(".hydra/overrides.yaml")):
        job_dir = overrides.parent.parent
        if overrides.stat().st_mtime >= since and not (job_dir / STATUS_FILE).is_file():
            records.append({"status": FAILED, "error": f"{job_dir}: no status file"})
    return records


def finished_records(sweep_dir: Path) -> list[dict[str, Any]]:
    """The status records of the jobs that left a status file so far (running jobs have none),
    skipped jobs left out."""
    records = [json.loads(p.read_text()) for p in Path(sweep_dir).rglob(STATUS_FILE)]
    return [r for r in records if r["status"] != SKIPPED]
