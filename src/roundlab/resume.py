"""Resumable sweeps: a multirun job whose result file it may keep is not trained again.

A job is reused when ``sweep.resume`` is true (the default; ``sweep.resume=false`` or
``python -m roundlab.sweep --fresh`` retrains every job) and its result file

- exists and parses,
- carries the job's :func:`roundlab.fingerprint.fingerprint` (same config, code and data; a file
  written before fingerprints existed has none and is never reused), and
- is FINISHED, or FAILED for a deterministic reason (``deterministic_failure`` in the file):
  ``no gradient`` (the model has no gradient path, for any seed) or a loss that became NaN/inf
  under ``trainer.deterministic=true`` (op determinism gives the same NaN again). Crashes,
  interruptions and NaN without op determinism are retried.

Everything else trains. Only multiruns resume; a single ``python -m roundlab.train`` always
trains. :func:`prune` keeps ``results/`` to exactly a sweep's plan.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path

from omegaconf import DictConfig

from roundlab import results
from roundlab.fingerprint import fingerprint
from roundlab.results import FAILED, FINISHED, RunResult
from roundlab.runs import RunKey

log = logging.getLogger(__name__)

# Reasons (prefixes of RunResult.error) that the same config, code and data fail with again.
ALWAYS_DETERMINISTIC = ("no gradient",)
DETERMINISTIC_UNDER_OP_DETERMINISM = ("loss became",)
# Left in a reused job's output directory, so the sweep's bookkeeping can count reused jobs.
REUSED_MARK = "roundlab_reused"


def stamp(result: RunResult, cfg: DictConfig) -> None:
    """Record the run's fingerprint and whether its failure (if any) is deterministic."""
    result.fingerprint = fingerprint(cfg)
    result.deterministic_failure = result.status == FAILED and is_deterministic(
        result.error or "", bool(cfg.trainer.deterministic)
    )


def is_deterministic(error: str, op_determinism: bool) -> bool:
    """Whether a failure with reason ``error`` happens again for the same fingerprint."""
    if error.startswith(ALWAYS_DETERMINISTIC):
        return True
    return op_determinism and error.startswith(DETERMINISTIC_UNDER_OP_DETERMINISM)


def reusable(cfg: DictConfig) -> RunResult | None:
    """The result file of the resolved config's run when a sweep may keep it, else None."""
    if not cfg.sweep.resume:
        return None
    path = RunKey.from_config(cfg).result_path(cfg.results_dir)
    if not path.is_file():
        return None
    try:
        old = results.read(path)
        current = fingerprint(cfg)
    except (ValueError, OSError):  # an unreadable file or data: training reports it
        return None
    if old.fingerprint != current:
        return None
    return old if old.status == FINISHED or old.deterministic_failure else None


def reuse(cfg: DictConfig, job_dir: Path) -> RunResult | None:
    """In a multirun job: the reusable result of ``cfg`` (a resolved copy is made), marking the
    job's directory and logging it; None when the job must train."""
    from roundlab.train import resolved

    found = reusable(resolved(cfg))
    if found is None:
        return None
    Path(job_dir).mkdir(parents=True, exist_ok=True)
    (Path(job_dir) / REUSED_MARK).write_text(f"{found.status}\n")
    log.info(
        "%s reused: %s with the same fingerprint (sweep.resume=false retrains)",
        found.key.result_path(cfg.results_dir),
        found.status,
    )
    return found


def reusable_jobs(cfgs: Sequence[DictConfig | None]) -> set[int]:
    """Indices of the resolved job configs (None: a config that fails validation) whose
    result files a sweep keeps."""
    return {i for i, cfg in enumerate(cfgs) if cfg is not None and reusable(cfg) is not None}


def reused_jobs(sweep_dir: Path, since: float = 0.0) -> int:
    """How many jobs of the sweep started at ``since`` (a time.time() value) were reused."""
    marks = Path(sweep_dir).rglob(REUSED_MARK)
    return sum(mark.stat().st_mtime >= since for mark in marks)


def prune(results_dir: Path, planned: Iterable[Path]) -> list[Path]:
    """Remove the result files under ``results_dir`` that are not ``planned`` (runs no longer in
    the sweep) with their saved models, the ``.tmp`` files a killed write left, and directories
    left empty. Returns the removed result files. Only files of the result layout are touched."""
    keep = {Path(p).absolute() for p in planned}
    removed = []
    for path in sorted(Path(results_dir).absolute().rglob("seed=*.json")):
        if path not in keep:
            path.unlink()
            path.with_suffix(".keras").unlink(missing_ok=True)
            removed.append(path)
    for tmp in Path(results_dir).rglob("seed=*.json.tmp"):
        tmp.unlink()
    for directory in sorted(Path(results_dir).glob("**/*"), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
    return removed
