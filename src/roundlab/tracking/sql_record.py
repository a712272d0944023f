"""A run written into an sqlite MLflow store in one transaction: its end (:func:`write`), or
the whole run, created and ended at once (:func:`record`).

Through ``MlflowClient`` a stacked group's member costs a transaction to create it, one to log
its dataset input, a ``get_run`` to find where its artifacts go, one per ``log_batch`` and one
for ``set_terminated``, each made of ORM objects: about 50 ms of CPU a run (51 params, a dozen
tags, several hundred metric rows of history), most of it in SQLAlchemy's unit of work, while
the rows themselves take a millisecond or two to insert. A sweep records over a thousand such
runs on two cores, so this module inserts the same rows into MLflow's own tables (its ORM
models' ``__table__``, of the pinned MLflow version, whose store has already checked the
database's schema), through the driver's ``executemany``, in one transaction:

- the params, tags and metrics checked first by MLflow's own ``log_batch`` validation: a name
  it refuses raises before anything is written, and a value past its length limits is
  truncated as the client truncates it;
- :func:`write`: the run's end (``status``, ``end_time``), only while the run is active: a run
  deleted meanwhile makes the transaction fail, as MLflow's own check does; a
  ``mlflow.runName`` tag renames the run too, as ``set_tag`` does; its tags replace tags of
  the same key, as ``set_tags`` does;
- :func:`record`: the run's row as ``create_run`` makes it (in an active experiment; its name
  the ``mlflow.runName`` tag, its user the ``mlflow.user`` tag or "unknown"), ended, with its
  creation tags and then its end's; and its dataset inputs as ``log_inputs`` writes them (the
  experiment's dataset of that name and digest, made when missing);
- its params (a key logged twice fails the transaction, as MLflow's params are immutable);
- its metrics, duplicates dropped, NaN stored as 0 with ``is_nan`` and an infinity as the
  largest finite float, as MLflow stores them; and each key's latest value, the metric with
  the greatest ``(step, timestamp, value)`` (``latest_metrics``, which ``get_run`` reads).

``tests/training/test_tracking_sql_record.py`` writes runs this way and through
``MlflowClient`` and compares everything MLflow reads back, so an MLflow upgrade that changes
the tables fails there. When either raises, nothing of it was written, and
:mod:`roundlab.tracking.records` goes on through the client.
"""

from __future__ import annotations

import functools
import math
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roundlab.tracking.store import _now_ms

LARGEST_FLOAT = 1.7976931348623157e308  # what MLflow stores for an infinity (sql has none)
RUNNING = "RUNNING"  # MLflow's status of a run not yet ended
# How long a connection waits for the store's write lock, as MLflow's sessions do
# (mlflow.store.db.utils): with sqlite's 5 s a sweep's busy store sent runs to the client.
BUSY_TIMEOUT_S = 20.0
RUN_NAME_TAG = "mlflow.runName"
USER_TAG = "mlflow.user"  # MLflow takes a run's user from this tag, else "unknown"


@dataclass(frozen=True)
class NewRun:
    """A run :func:`record` creates and ends at once: its id (a uuid4's hex, as MLflow makes
    them), experiment, name, creation ``tags``, ``start_time`` (ms since the epoch) and
    ``artifact_uri``."""

    run_id: str
    experiment_id: str
    name: str
    tags: dict[str, str]
    start_time: int
    artifact_uri: str


def write(
    db: Path,
    run_id: str,
    params: list[Any],
    tags: list[Any],
    metrics: list[Any],
    status: str,
) -> None:
    """End run ``run_id`` of the sqlite store ``db`` with ``status`` (FINISHED, FAILED,
    KILLED), with its ``params`` (``mlflow.entities.Param``), ``tags`` (``RunTag``) and
    ``metrics`` (``Metric``), all or nothing. Raises ``LookupError`` when the run is not
    active in the store, ``MlflowException`` for what ``log_batch`` refuses."""
    import sqlalchemy as sa
    from mlflow.store.tracking.dbmodels.models import SqlRun, SqlTag

    params, tags, rows = _checked(run_id, params, tags, metrics)
    latest_tags = {t.key: t.value for t in tags}
    end = {"status": status, "end_time": _now_ms()}
    if RUN_NAME_TAG in latest_tags:
        end["name"] = latest_tags[RUN_NAME_TAG]
    runs, tag_table = SqlRun.__table__, SqlTag.__table__
    with _engine(os.path.realpath(db)).begin() as connection:
        ended = connection.execute(
            sa.update(runs)
            .where(runs.c.run_uuid == run_id, runs.c.lifecycle_stage == "active")
            .values(**end)
        )
        if ended.rowcount != 1:
            raise LookupError(f"run {run_id} is not an active run of {db}")
        if latest_tags:
            connection.execute(
                sa.delete(tag_table).where(
                    tag_table.c.run_uuid == run_id, tag_table.c.key.in_(latest_tags)
                )
            )
        _write_rows(connection, run_id, params, latest_tags, rows)


def record(
    db: Path,
    run: NewRun,
    params: list[Any],
    tags: list[Any],
    metrics: list[Any],
    inputs: list[Any],
    status: str,
) -> None:
    """Create ``run`` in the sqlite store ``db`` and end it with ``status`` (``RUNNING`` leaves
    it open, as ``create_run`` does), with its ``params``, ``tags`` (replacing creation tags of
    the same key), ``metrics`` and dataset ``inputs`` (``mlflow.entities.DatasetInput``), all
    or nothing: what ``create_run``, ``log_inputs``, ``log_batch`` and ``set_terminated`` would
    leave. Raises ``LookupError`` when the experiment is not active, ``MlflowException`` for
    what ``log_batch`` refuses."""
    from mlflow.store.tracking.dbmodels.models import SqlExperiment, SqlRun

    params, tags, rows = _checked(run.run_id, params, tags, metrics)
    all_tags = {**run.tags, RUN_NAME_TAG: run.name, **{t.key: t.value for t in tags}}
    experiments = SqlExperiment.__table__
    with _engine(os.path.realpath(db)).begin() as connection:
        stage = connection.exec_driver_sql(
            f'SELECT "lifecycle_stage" FROM "{experiments.name}" WHERE "experiment_id" = ?',
            (int(run.experiment_id),),
        ).fetchone()
        if stage is None or stage[0] != "active":
            raise LookupError(f"experiment {run.experiment_id} is not active in {db}")
        _insert(
            connection,
            SqlRun.__table__,
            [
                {
                    "run_uuid": run.run_id,
                    "name": all_tags[RUN_NAME_TAG],
                    "source_type": "UNKNOWN",
                    "source_name": "",
                    "entry_point_name": "",
                    "user_id": run.tags.get(USER_TAG, "unknown"),
                    "status": status,
                    "start_time": run.start_time,
                    "end_time": None if status == RUNNING else _now_ms(),
                    "deleted_time": None,
                    "source_version": "",
                    "lifecycle_stage": "active",
                    "artifact_uri": run.artifact_uri,
                    "experiment_id": int(run.experiment_id),
                }
            ],
        )
        _write_rows(connection, run.run_id, params, all_tags, rows)
        for entry in inputs:
            _write_input(connection, run.experiment_id, run.run_id, entry)


def _checked(
    run_id: str, params: list[Any], tags: list[Any], metrics: list[Any]
) -> tuple[list[Any], list[Any], list[dict[str, Any]]]:
    """MLflow's own ``log_batch`` checks (a refused name raises, a long value is truncated)
    and the metric rows."""
    from mlflow.utils.validation import _validate_batch_log_data, _validate_param_keys_unique

    metrics, params, tags = _validate_batch_log_data(metrics, params, tags)
    _validate_param_keys_unique(params)
    return params, tags, _metric_rows(run_id, metrics)


def _write_rows(
    connection: Any,
    run_id: str,
    params: list[Any],
    tags: dict[str, str],
    rows: list[dict[str, Any]],
) -> None:
    """A run's params (a key logged twice fails the transaction: params are immutable),
    ``tags`` and metric rows with each key's latest."""
    from mlflow.store.tracking.dbmodels.models import SqlLatestMetric, SqlMetric, SqlParam, SqlTag

    _insert(
        connection,
        SqlParam.__table__,
        [{"run_uuid": run_id, "key": p.key, "value": p.value} for p in params],
    )
    _insert(
        connection,
        SqlTag.__table__,
        [{"run_uuid": run_id, "key": k, "value": v} for k, v in tags.items()],
    )
    _insert(connection, SqlMetric.__table__, rows)
    _insert(connection, SqlLatestMetric.__table__, _latest(rows))


def _write_input(connection: Any, experiment_id: str, run_id: str, entry: Any) -> None:
    """A dataset input of the run, as ``log_inputs`` writes it: the experiment's dataset of
    that name and digest (made when missing), an input linking it to the run and its tags."""
    from mlflow.store.tracking.dbmodels.models import SqlDataset, SqlInput, SqlInputTag

    dataset, datasets = entry.dataset, SqlDataset.__table__
    row = {
        "dataset_uuid": uuid.uuid4().hex,
        "experiment_id": int(experiment_id),
        "name": dataset.name,
        "digest": dataset.digest,
        "dataset_source_type": dataset.source_type,
        "dataset_source": dataset.source,
        "dataset_schema": dataset.schema,
        "dataset_profile": dataset.profile,
    }
    _insert(connection, datasets, [row], "OR IGNORE")  # a parallel run may have made it
    (dataset_uuid,) = connection.exec_driver_sql(
        f'SELECT "dataset_uuid" FROM "{datasets.name}" '
        'WHERE "experiment_id" = ? AND "name" = ? AND "digest" = ?',
        (int(experiment_id), dataset.name, dataset.digest),
    ).fetchone()
    input_uuid = uuid.uuid4().hex
    link = {
        "input_uuid": input_uuid,
        "source_type": "DATASET",
        "source_id": dataset_uuid,
        "destination_type": "RUN",
        "destination_id": run_id,
    }
    _insert(connection, SqlInput.__table__, [link])
    _insert(
        connection,
        SqlInputTag.__table__,
        [{"input_uuid": input_uuid, "name": t.key, "value": t.value} for t in entry.tags],
    )


def _insert(connection: Any, table: Any, rows: list[dict[str, Any]], conflict: str = "") -> None:
    """``rows`` (dicts with the same keys, each a column of MLflow's ``table``) into the table
    through the driver's ``executemany``: SQLAlchemy's per-row parameter processing cost a
    run's history about 10 ms."""
    if not rows:
        return
    columns = list(rows[0])
    missing = set(columns) - set(table.c.keys())
    if missing:
        raise LookupError(f"MLflow's table {table.name} has no columns {sorted(missing)}")
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    connection.exec_driver_sql(
        f'INSERT {conflict} INTO "{table.name}" ({names}) VALUES ({marks})',
        [tuple(row[c] for c in columns) for row in rows],
    )


def _metric_rows(run_id: str, metrics: list[Any]) -> list[dict[str, Any]]:
    """The ``metrics`` table's rows: one per distinct metric, stored the way MLflow does."""
    rows: dict[tuple, dict[str, Any]] = {}
    for metric in metrics:
        is_nan = math.isnan(metric.value)
        value = 0.0 if is_nan else metric.value
        if math.isinf(value):
            value = math.copysign(LARGEST_FLOAT, value)
        row = {
            "run_uuid": run_id,
            "key": metric.key,
            "value": value,
            "timestamp": metric.timestamp,
            "step": metric.step,
            "is_nan": is_nan,
        }
        rows.setdefault((metric.key, metric.timestamp, metric.step, value, is_nan), row)
    return list(rows.values())


def _latest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each key's row with the greatest ``(step, timestamp, value)``, the first of equals."""
    latest: dict[str, dict[str, Any]] = {}
    for row in rows:
        held = latest.get(row["key"])
        recency = (row["step"], row["timestamp"], row["value"])
        if held is None or recency > (held["step"], held["timestamp"], held["value"]):
            latest[row["key"]] = row
    return list(latest.values())


@functools.cache
def _engine(db: str) -> Any:
    """One engine per store file and process. Its connections get the store's journal mode
    from :mod:`roundlab.tracking.store`'s connect hook, like MLflow's own engine, and the
    settings MLflow gives each of its sessions: foreign keys enforced, the write lock waited
    for :data:`BUSY_TIMEOUT_S`."""
    import sqlalchemy as sa

    engine = sa.create_engine(f"sqlite:///{db}", connect_args={"timeout": BUSY_TIMEOUT_S})
    sa.event.listen(engine, "connect", _foreign_keys)
    return engine


def _foreign_keys(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.execute("PRAGMA foreign_keys = ON")
