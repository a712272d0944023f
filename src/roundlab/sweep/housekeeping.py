"""The files a sweep keeps in order: the marks of reused jobs, and results/ pruned to the plan.

Neither needs TensorFlow, so the sweep process that plans and starts the multiruns uses them
without importing it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from roundlab.paths import TEMPORARY_GLOB

# Left in a reused job's output directory, so the sweep's bookkeeping can count reused jobs.
REUSED_MARK = "roundlab_reused"


def reused_jobs(sweep_dir: Path, since: float = 0.0) -> int:
    """How many jobs of the sweep started at ``since`` (a time.time() value) were reused."""
    marks = Path(sweep_dir).rglob(REUSED_MARK)
    return sum(mark.stat().st_mtime >= since for mark in marks)


def prune(results_dir: Path, planned: Iterable[Path]) -> list[Path]:
    """Remove the result files under ``results_dir`` that are not ``planned`` (runs no longer in
    the sweep) with their saved models, the temporary files a killed write left
    (:data:`roundlab.paths.TEMPORARY_GLOB`, and the ``.tmp`` of older versions), and directories
    left empty. Returns the removed result files. Only files of the result layout are touched."""
    keep = {Path(p).absolute() for p in planned}
    removed = []
    for path in sorted(Path(results_dir).absolute().rglob("seed=*.json")):
        if path not in keep:
            path.unlink()
            path.with_suffix(".keras").unlink(missing_ok=True)
            removed.append(path)
    for pattern in (TEMPORARY_GLOB, "seed=*.json.tmp"):
        for tmp in Path(results_dir).rglob(pattern):
            tmp.unlink()
    for directory in sorted(Path(results_dir).glob("**/*"), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
    return removed


def announce_removed(removed: list[Path]) -> None:
    """One line for the result files a sweep removed (runs no longer planned), when any."""
    if removed:
        print(f"sweep: removed {len(removed)} result file(s) of runs no longer planned", flush=True)
