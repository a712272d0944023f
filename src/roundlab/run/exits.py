"""How a job ends for the process that ran it: the value a Hydra sweeper gets, the status file
it leaves, and the one line a single run stops with instead of a traceback.

Exit codes of ``python -m roundlab.train``: 0 for a run that finished (a multirun: that ran its
plan, failed jobs recorded, unless ``fail_on_failed_jobs=true``); 1 for a run that ended FAILED
or could not start (a config, data or tracking error, in one line without a traceback;
``HYDRA_FULL_ERROR=1`` shows the traceback of a data error) or could not write its files (a
results_dir it cannot write to, a full disk: one line naming the path); 130 after SIGINT and
143 after SIGTERM, the run recorded KILLED.
"""

from __future__ import annotations

import logging
import math
import os
import traceback
from pathlib import Path

from roundlab.errors import ConfigError, TrackingUnreachable, WriteFailed
from roundlab.results import FAILED, RunResult
from roundlab.run.status import write_status
from roundlab.run.validate import objective

log = logging.getLogger(__name__)

DATA_PACKAGE = Path(__file__).resolve().parents[1] / "data"


def worst(maximise: bool) -> float:
    """What a failed job returns to a sweeper: the worst possible value of the objective."""
    return -math.inf if maximise else math.inf


def maximised(objective_text: str) -> bool:
    """Whether the objective is maximised; False for one that does not parse (its job fails on
    it anyway, and any value is the worst then)."""
    try:
        return objective(objective_text)[2]
    except ConfigError:
        return False


def job_return(objective_text: str, job_dir: Path, result: RunResult) -> float:
    """Leave the job's status file and give the sweeper the run's objective value."""
    path = result.key.result_path(result.config["results_dir"])
    write_status(job_dir, result.status, result.error, path)
    split, metric, maximise = objective(objective_text)
    return float(result.metrics[split][metric]) if result.ok else worst(maximise)


def failed_before_training(err: Exception, job_dir: Path, multirun: bool, maximise: bool) -> float:
    """A bad value, missing data, a dead tracking server, or files that could not be written:
    no result file. A single run stops here (in one line, without a traceback, for the errors
    :func:`one_line` knows); a sweep counts the job as failed and goes on."""
    if not multirun:
        message = one_line(err)
        if message is None:
            raise err
        raise SystemExit(message) from err
    if isinstance(err, WriteFailed):
        reason = f"write error: {err}"
    else:
        reason = str(err) if isinstance(err, ConfigError) else f"{type(err).__name__}: {err}"
    log.error("job failed without a result file: %s", reason)
    write_status(job_dir, FAILED, reason)
    return worst(maximise)


def one_line(err: Exception) -> str | None:
    """The one-line message a single run stops with instead of a traceback: for config,
    tracking and write errors, and for data errors (ValueError, OSError raised in
    roundlab.data) unless ``HYDRA_FULL_ERROR=1`` asks for the traceback. None for anything
    else (a bug)."""
    if isinstance(err, ConfigError):
        return f"config error: {err}"
    if isinstance(err, TrackingUnreachable):
        return f"tracking error: {err}"
    if isinstance(err, WriteFailed):
        return f"write error: {err}"
    full_error = os.environ.get("HYDRA_FULL_ERROR") == "1"
    if isinstance(err, ValueError | OSError) and raised_in_data(err) and not full_error:
        return f"data error: {err}"
    return None


def raised_in_data(err: BaseException) -> bool:
    """Whether the traceback of ``err`` passes through the roundlab.data package."""
    frames = traceback.extract_tb(err.__traceback__)
    return any(Path(f.filename).resolve().is_relative_to(DATA_PACKAGE) for f in frames)


def stop_if_failed(result: RunResult) -> None:
    """A single run that did not finish exits non-zero, so scripts and CI see it."""
    if not result.ok:
        path = result.key.result_path(result.config["results_dir"])
        raise SystemExit(f"run {result.status}: {result.error} (result file {path})")
