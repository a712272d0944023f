"""What roundlab.tracking.sql_record leaves in the store matches what MlflowClient would, also
for values the client changes or refuses (a tag past MLflow's length limit, a name MLflow
rejects, the run-name tag), and its connections wait for the store's write lock as long as
MLflow's own do."""

import pytest
from mlflow.entities import Metric, Param, RunTag
from mlflow.exceptions import MlflowException

from roundlab.tracking import sql_record
from roundlab.tracking import store as tracking_store

MLFLOW_BUSY_TIMEOUT_MS = 20000  # mlflow.store.db.utils sets it on each of its sessions


def _two_runs(store):
    client = tracking_store.client(store)
    experiment = tracking_store.experiment_id(client, "sql-record-semantics")
    made = [client.create_run(experiment, run_name="original").info.run_id for _ in range(2)]
    return client, made


def _end_both(client, store, runs, params, tags, metrics):
    by_client, by_sql = runs
    client.log_batch(by_client, params=params, tags=tags, metrics=metrics)
    client.set_terminated(by_client, "FINISHED")
    sql_record.write(tracking_store.sqlite_file(store), by_sql, params, tags, metrics, "FINISHED")
    return client.get_run(by_client), client.get_run(by_sql)


def test_a_tag_past_mlflows_limit_is_truncated_as_the_client_does(store):
    client, runs = _two_runs(store)
    expected, found = _end_both(client, store, runs, [], [RunTag("long", "x" * 9000)], [])
    assert len(expected.data.tags["long"]) == 8000
    assert len(found.data.tags["long"]) == 8000


def test_the_run_name_tag_renames_the_run_as_the_client_does(store):
    client, runs = _two_runs(store)
    expected, found = _end_both(client, store, runs, [], [RunTag("mlflow.runName", "new")], [])
    assert expected.info.run_name == "new"
    assert found.info.run_name == "new"


def test_a_metric_name_mlflow_refuses_writes_nothing(store):
    client, (run_id, _) = _two_runs(store)
    with pytest.raises(MlflowException):
        sql_record.write(
            tracking_store.sqlite_file(store),
            run_id,
            [Param("seed", "3")],
            [],
            [Metric("a//b", 1.0, 1000, 0)],
            "FINISHED",
        )
    run = client.get_run(run_id)
    assert (run.info.status, run.data.params, run.data.metrics) == ("RUNNING", {}, {})


def test_its_connections_wait_for_the_write_lock_as_long_as_mlflows(store):
    client, _ = _two_runs(store)  # the store exists, with its schema
    engine = sql_record._engine(str(tracking_store.sqlite_file(store)))
    with engine.connect() as connection:
        waits = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
        foreign_keys = connection.exec_driver_sql("PRAGMA foreign_keys").scalar()
    assert waits == MLFLOW_BUSY_TIMEOUT_MS
    assert foreign_keys == 1
