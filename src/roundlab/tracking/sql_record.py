"""A run's end written into an sqlite MLflow store in one transaction.

Through ``MlflowClient`` a run's end is a transaction per ``log_batch`` and one for
``set_terminated``, each made of ORM objects: for a member of a sweep (51 params, a dozen tags,
about 300 metric rows of history) that costs about 70 ms of CPU, most of it in SQLAlchemy's unit
of work, while the rows themselves take a few milliseconds to insert. A sweep records over a
thousand such runs on two cores, so :func:`write` inserts the same rows with SQLAlchemy Core
into MLflow's own tables (its ORM models' ``__table__``, of the pinned MLflow version, whose
store has already checked the database's schema), in one transaction:

- the params, tags and metrics checked first by MLflow's own ``log_batch`` validation: a name
  it refuses raises before anything is written, and a value past its length limits is
  truncated as the client truncates it;
- the run's end (``status``, ``end_time``), only while the run is active: a run deleted
  meanwhile makes the transaction fail, as MLflow's own check does; a ``mlflow.runName`` tag
  renames the run too, as ``set_tag`` does;
- its params (a key logged twice fails the transaction, as MLflow's params are immutable);
- its tags, replacing a tag of the same key, as ``set_tags`` does;
- its metrics, duplicates dropped, NaN stored as 0 with ``is_nan`` and an infinity as the
  largest finite float, as MLflow stores them; and each key's latest value, the metric with
  the greatest ``(step, timestamp, value)`` (``latest_metrics``, which ``get_run`` reads).

``tests/training/test_tracking_sql_record.py`` writes one record this way and through
``MlflowClient`` and compares everything MLflow reads back, so an MLflow upgrade that changes
the tables fails there. :mod:`roundlab.tracking.tracker` falls back to the client when a write
raises.
"""

from __future__ import annotations

import functools
import math
import os
import time
from pathlib import Path
from typing import Any

# What MLflow stores for an infinite metric: sql has no infinity.
LARGEST_FLOAT = 1.7976931348623157e308
# How long a connection waits for the store's write lock, as MLflow's sessions do
# (mlflow.store.db.utils): with sqlite's 5 s a sweep's busy store sent runs to the client.
BUSY_TIMEOUT_S = 20.0
RUN_NAME_TAG = "mlflow.runName"


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
    from mlflow.store.tracking.dbmodels.models import (
        SqlLatestMetric,
        SqlMetric,
        SqlParam,
        SqlRun,
        SqlTag,
    )
    from mlflow.utils.validation import _validate_batch_log_data, _validate_param_keys_unique

    metrics, params, tags = _validate_batch_log_data(metrics, params, tags)
    _validate_param_keys_unique(params)
    rows = _metric_rows(run_id, metrics)
    latest_tags = {t.key: t.value for t in tags}
    end = {"status": status, "end_time": int(time.time() * 1000)}
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
        if params:
            connection.execute(
                sa.insert(SqlParam.__table__),
                [{"run_uuid": run_id, "key": p.key, "value": p.value} for p in params],
            )
        if latest_tags:
            connection.execute(
                sa.delete(tag_table).where(
                    tag_table.c.run_uuid == run_id, tag_table.c.key.in_(latest_tags)
                )
            )
            connection.execute(
                sa.insert(tag_table),
                [{"run_uuid": run_id, "key": k, "value": v} for k, v in latest_tags.items()],
            )
        if rows:
            connection.execute(sa.insert(SqlMetric.__table__), rows)
            connection.execute(sa.insert(SqlLatestMetric.__table__), _latest(rows))


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
