"""How a run's record reaches the MLflow store: its end (:func:`end_run`), or, for a stacked
group's member, the whole run created and ended in one go (:func:`make`, :func:`record`).

:func:`end_run` writes a run's params, tags, metrics and end: into an sqlite store in one
transaction (:func:`roundlab.tracking.sql_record.write`), into any other through the client's
``log_batch`` (:func:`batches`: as few calls as MLflow's limits allow) and ``set_terminated``.

A member is recorded within milliseconds of its start, so its run need not exist while it
trains: in an sqlite store whose experiment keeps its artifacts in a local directory (the
default store), :func:`make` names the run at once (an id as MLflow makes them, which the
result file records), its artifacts are written where ``log_artifacts`` would put them
(:func:`artifact_dir`) and :func:`record`, on the process's background writer
(:mod:`roundlab.tracking.writer`), writes the run, with its params, tags, metric history,
dataset input and end, in one transaction (:func:`roundlab.tracking.sql_record.record`).
Through the client the same run cost a creation, a dataset input, a ``get_run`` to find the
artifact directory and the end, five transactions and about 50 ms of CPU. A server, another
artifact store, or a run that logs its model goes through the client
(:class:`roundlab.tracking.tracker.RunTracker`).
"""

from __future__ import annotations

import functools
import logging
import uuid
from pathlib import Path
from typing import Any

from roundlab.tracking import sql_record
from roundlab.tracking.sql_record import RUNNING, NewRun
from roundlab.tracking.store import _now_ms, sqlite_file

log = logging.getLogger(__name__)

# MLflow's limits on one log_batch: 1000 metrics, 100 params, 100 tags, 1000 entries in all.
MAX_METRICS, MAX_PARAMS, MAX_TAGS, MAX_ENTRIES = 1000, 100, 100, 1000


def batches(params: list[Any], tags: list[Any], metrics: list[Any]) -> list[dict[str, list]]:
    """``params``, ``tags`` and ``metrics`` as few ``log_batch`` keyword sets as MLflow's
    limits allow, params and tags first (a run's tags before its metrics are useful alone)."""
    out = []
    while params or tags or metrics or not out:
        p, t = params[:MAX_PARAMS], tags[:MAX_TAGS]
        m = metrics[: min(MAX_METRICS, MAX_ENTRIES - len(p) - len(t))]
        params, tags, metrics = params[len(p) :], tags[len(t) :], metrics[len(m) :]
        out.append({"params": p, "tags": t, "metrics": m})
    return out


def end_run(
    mlflow_client: Any, run_id: str, params: list, tags: list, metrics: list, status: str
) -> None:
    """Log ``params``, ``tags`` and ``metrics`` to run ``run_id`` and end it with ``status``.

    Into an sqlite store, one transaction of plain inserts (:mod:`roundlab.tracking.sql_record`,
    a third of the client's CPU); should it fail, and into any other store, through the client,
    in as few ``log_batch`` calls as MLflow's limits allow, the run ended even when they fail."""
    db = sqlite_file(mlflow_client.tracking_uri)
    if db is not None:
        try:
            sql_record.write(db, run_id, params, tags, metrics, status)
            return
        except Exception as err:  # nothing was written: the client's way costs more, not less
            log.warning("MLflow run %s recorded through the client: %s", run_id, err)
    try:
        for batch in batches(params, tags, metrics):
            mlflow_client.log_batch(run_id, **batch)
    finally:  # a write that failed (a full disk, a server error) still ends the run
        # roundlab's statuses (FINISHED, FAILED, KILLED) are MLflow run statuses.
        mlflow_client.set_terminated(run_id, status)


def make(mlflow_client: Any, exp_id: str, run_name: str, tags: dict[str, str]) -> NewRun | None:
    """The run to record in one transaction, when the store is an sqlite file and experiment
    ``exp_id`` keeps its artifacts in a local directory; None otherwise."""
    from mlflow.utils.uri import append_to_uri_path

    if sqlite_file(mlflow_client.tracking_uri) is None:
        return None
    root = _artifact_root(mlflow_client, exp_id)
    if not root.startswith("file:"):
        return None
    run_id = uuid.uuid4().hex
    location = append_to_uri_path(root, run_id, "artifacts")
    return NewRun(run_id, exp_id, run_name, dict(tags), _now_ms(), location)


def artifact_dir(new: NewRun) -> Path:
    """The local directory where run ``new`` keeps its artifacts (:func:`make` makes only runs
    whose experiment keeps them in one)."""
    from mlflow.utils.file_utils import local_file_uri_to_path

    return Path(local_file_uri_to_path(new.artifact_uri))


@functools.cache
def _artifact_root(mlflow_client: Any, exp_id: str) -> str:
    """Where experiment ``exp_id`` keeps its runs' artifacts (it never changes)."""
    return mlflow_client.get_experiment(exp_id).artifact_location


def record(
    mlflow_client: Any,
    new: NewRun,
    record: tuple[list[Any], list[Any], list[Any]],
    inputs: list[Any],
    status: str,
) -> None:
    """Create and end the run ``new`` with ``status``, its ``record`` (params, tags, metrics)
    and dataset ``inputs``; its artifacts are already in :func:`artifact_dir`. Should the one
    transaction fail (nothing of it is written), the run is created alone under the same id
    (the result file names it), its inputs logged through the client and its record and end
    written as :func:`end_run` writes them: what is accepted is kept. A deleted experiment
    gets nothing (``LookupError``)."""
    db = sqlite_file(mlflow_client.tracking_uri)
    try:
        sql_record.record(db, new, *record, inputs, status)
    except LookupError:  # its experiment was deleted: no way of writing it can work
        raise
    except Exception as err:
        _record_in_steps(mlflow_client, db, new, record, inputs, status, err)


def _record_in_steps(
    mlflow_client: Any,
    db: Path,
    new: NewRun,
    record: tuple[list[Any], list[Any], list[Any]],
    inputs: list[Any],
    status: str,
    err: Exception,
) -> None:
    """After the one transaction failed (``err``): the run alone under its id, then its
    inputs through the client and its record and end as :func:`end_run` writes them."""
    try:
        sql_record.record(db, new, [], [], [], [], RUNNING)
    except Exception as again:
        log.warning("MLflow run %s not recorded: %s; then %s", new.run_id, err, again)
        raise err from again
    log.warning("MLflow run %s recorded in steps: %s", new.run_id, err)
    try:
        if inputs:
            mlflow_client.log_inputs(new.run_id, datasets=inputs)
    finally:
        end_run(mlflow_client, new.run_id, *record, status)
