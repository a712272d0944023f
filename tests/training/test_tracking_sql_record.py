"""A run's end written in one transaction into an sqlite store (roundlab.tracking.sql_record)
reads back through MlflowClient exactly as the client's own log_batch and set_terminated
would have left it, is all or nothing, and falls back to the client when it fails."""

import math

import pytest
import sqlalchemy
from mlflow.entities import Metric, Param, RunTag

from roundlab.tracking import records, sql_record
from roundlab.tracking import store as tracking_store

INF = float("inf")


def _record():
    params = [Param("seed", "3"), Param("model.hidden_sizes", "[64, 64]"), Param("x", "y" * 6000)]
    tags = [RunTag("roundlab.device", "cpu"), RunTag("roundlab.result_file", "r/seed=3.json")]
    metrics = [
        *(Metric("train/loss", 1.0 / (e + 1), 1000 + e, e) for e in range(40)),
        Metric("train/loss", 0.5, 1000, 0),  # a duplicate
        Metric("train/loss", 0.5, 1000, 0),
        Metric("val/mae", 0.3, 2000, 5),
        Metric("val/mae", 0.4, 2000, 5),  # same step and time, greater value: the latest
        Metric("val/mae", 0.9, 1500, 5),  # an older time at the same step: not the latest
        Metric("val/mae", 0.2, 1000, 2),  # logged last at an earlier step: not the latest
        Metric("test/nan", math.nan, 1000, 0),
        Metric("test/up", INF, 1000, 0),
        Metric("test/down", -INF, 1000, 0),
        Metric("duration_s", 1.25, 1000, 0),
    ]
    return params, tags, metrics


def _created(client, experiment):
    # roundlab.device is set at creation too: the end replaces it, as set_tags does
    run = client.create_run(experiment, tags={"roundlab.device": "gpu", "a": "b"})
    return run.info.run_id


def _read_back(client, run_id, engine):
    run = client.get_run(run_id)
    histories = {
        key: [(m.step, m.timestamp, repr(m.value)) for m in client.get_metric_history(run_id, key)]
        for key in run.data.metrics
    }
    with engine.connect() as connection:
        latest = connection.execute(
            sqlalchemy.text(
                "SELECT key, value, timestamp, step, is_nan FROM latest_metrics "
                "WHERE run_uuid = :run ORDER BY key"
            ),
            {"run": run_id},
        ).fetchall()
    tags = {k: v for k, v in run.data.tags.items() if k != "mlflow.runName"}  # random names
    return {
        "status": run.info.status,
        "ended": run.info.end_time is not None,
        "params": run.data.params,
        "tags": tags,
        "metrics": {k: repr(v) for k, v in run.data.metrics.items()},
        "histories": histories,
        "latest": [tuple(row) for row in latest],
    }


def test_a_record_in_one_transaction_reads_back_as_the_clients_own(store, tmp_path):
    client = tracking_store.client(store)
    experiment = tracking_store.experiment_id(client, "sql-record")
    by_client, by_sql = _created(client, experiment), _created(client, experiment)
    params, tags, metrics = _record()

    for batch in records.batches(list(params), list(tags), list(metrics)):
        client.log_batch(by_client, **batch)
    client.set_terminated(by_client, "KILLED")
    sql_record.write(tracking_store.sqlite_file(store), by_sql, params, tags, metrics, "KILLED")

    engine = sqlalchemy.create_engine(store)
    expected, found = _read_back(client, by_client, engine), _read_back(client, by_sql, engine)
    engine.dispose()
    assert found == expected
    assert found["status"] == "KILLED" and found["ended"]
    assert found["tags"]["roundlab.device"] == "cpu"
    assert found["metrics"]["val/mae"] == "0.4"
    assert len(found["histories"]["train/loss"]) == 41  # the duplicates once


def test_a_run_that_is_no_longer_active_gets_nothing_written(store):
    client = tracking_store.client(store)
    run_id = _created(client, tracking_store.experiment_id(client, "sql-record"))
    client.delete_run(run_id)
    params, tags, metrics = _record()
    with pytest.raises(LookupError, match=run_id):
        sql_record.write(tracking_store.sqlite_file(store), run_id, params, tags, metrics, "FAILED")
    client.restore_run(run_id)
    run = client.get_run(run_id)
    assert (run.info.status, run.data.params, run.data.metrics) == ("RUNNING", {}, {})


def test_a_transaction_that_fails_is_written_through_the_client(store, monkeypatch, caplog):
    client = tracking_store.client(store)
    run_id = _created(client, tracking_store.experiment_id(client, "sql-record"))
    params, tags, metrics = _record()

    def locked(*args):
        raise sqlalchemy.exc.OperationalError("INSERT", {}, Exception("database is locked"))

    monkeypatch.setattr(sql_record, "write", locked)
    records.end_run(client, run_id, params, tags, metrics, "FINISHED")
    run = client.get_run(run_id)
    assert run.info.status == "FINISHED"
    assert run.data.params["seed"] == "3"
    assert run.data.metrics["duration_s"] == 1.25
    assert "recorded through the client" in caplog.text and "database is locked" in caplog.text
