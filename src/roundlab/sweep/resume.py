"""Resumable sweeps: a multirun job whose result file it may keep is not trained again.

A job is reused when ``sweep.resume`` is true (the default; ``sweep.resume=false`` or
``python -m roundlab.sweep --fresh`` retrains every job) and its result file

- exists, parses and matches its digest (:func:`roundlab.results.content_digest`: a file
  edited by hand is trained again; a file older than digests, ``format_version`` < 4, has none
  and is never reused),
- carries the job's :func:`roundlab.run.fingerprint.fingerprint` (same config, code and data; a file
  written before fingerprints existed has none and is never reused), and
- is FINISHED, or FAILED for a deterministic reason (``deterministic_failure`` in the file):
  ``no gradient`` (the model has no gradient path, for any seed) or a loss that became NaN/inf
  under ``trainer.deterministic=true`` (op determinism gives the same NaN again). Crashes,
  interruptions and NaN without op determinism are retried;
- when FINISHED with a saved model (its ``model`` card), has that ``.keras`` file beside it,
  whole (:func:`roundlab.serving.archive.model_problem`): a run whose model is missing or
  truncated is retrained, or predict could not use it.

Everything else trains. Only multiruns resume; a single ``python -m roundlab.train`` always
trains.

A multirun given ``sweep.only`` (a file listing result files relative to ``results_dir``; the
sweep's rate extensions, :mod:`roundlab.sweep.extend`) trains only the jobs whose result file
is listed (:func:`wanted`): the others of its cross product are dropped before they train and
leave no result file. The vectorised launcher drops them from its job list; with the other
launchers the job returns at once (:data:`roundlab.run.status.SKIPPED`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import yaml
from omegaconf import DictConfig, OmegaConf

from roundlab.paths import atomic_write
from roundlab.results import FINISHED, RunResult
from roundlab.run.config import resolve
from roundlab.run.fingerprint import fingerprint
from roundlab.runs import RunKey
from roundlab.serving.archive import model_problem
from roundlab.sweep import result_reads
from roundlab.sweep.housekeeping import REUSED_MARK

log = logging.getLogger(__name__)


def reusable(cfg: DictConfig) -> RunResult | None:
    """The result file of the resolved config's run when a sweep may keep it, else None."""
    if not cfg.sweep.resume:
        return None
    path = RunKey.from_config(cfg).result_path(cfg.results_dir)
    return kept(path, lambda: fingerprint(cfg))


def kept(path: Path, current: Callable[[], str]) -> RunResult | None:
    """The result file at ``path`` when a sweep may keep it for a job whose fingerprint
    ``current()`` gives (computed only when the file exists), else None."""
    if not path.is_file():
        return None
    try:
        old = result_reads.read(path)
        now = current()
    except (ValueError, OSError):  # an unreadable or edited file, or data: training reports it
        return None
    if old.digest is None or old.fingerprint != now:
        return None
    if old.status == FINISHED and old.model:
        problem = model_problem(path.parent / str(old.model.get("file")))
        if problem is not None:
            log.warning("%s is retrained: %s", path, problem)
            return None
    return old if old.status == FINISHED or old.deterministic_failure else None


def reuse(cfg: DictConfig, job_dir: Path) -> RunResult | None:
    """In a multirun job: the reusable result of ``cfg`` (a resolved copy is made), marking the
    job's directory and logging it; None when the job must train."""
    found = reusable(resolve(cfg))
    if found is None:
        return None
    atomic_write(Path(job_dir) / REUSED_MARK, f"{found.status}\n")
    log.info(
        "%s reused: %s with the same fingerprint (sweep.resume=false retrains)",
        found.key.result_path(cfg.results_dir),
        found.status,
    )
    return found


def wanted(cfg: DictConfig) -> bool:
    """The job's result file is on its multirun's allow-list (``sweep.only``), or there is none.
    A config whose run cannot be named is kept: training reports what is wrong with it, and so
    is a config that is not roundlab's (Hydra's own launcher tests run other apps)."""
    only = OmegaConf.select(cfg, "sweep.only")
    if not only:
        return True
    try:
        path = RunKey.from_config(cfg).result_path(".").as_posix()
    except Exception:
        return True
    return path in _allowed(str(only))


@functools.cache
def _allowed(only: str) -> frozenset[str]:
    """The allow-list file's entries: read once per process (the sweep writes it before the
    multirun starts and never changes it while it runs)."""
    return frozenset(yaml.safe_load(Path(only).read_text()) or ())


def reusable_jobs(cfgs: Sequence[DictConfig | None]) -> set[int]:
    """Indices of the resolved job configs (None: a config that fails validation) whose
    result files a sweep keeps."""
    return {i for i, cfg in enumerate(cfgs) if cfg is not None and reusable(cfg) is not None}
