"""A stacked member's run created and ended in one transaction (roundlab.tracking.records)
reads back through MlflowClient as the client's own creation, dataset input, artifacts and end
leave it; a dataset that runs share is stored once; an experiment deleted meanwhile gets
nothing written; a run whose transaction fails is written in steps under its id; and a store
the transaction cannot use is left to the client."""

import sqlite3

import mlflow.data
import numpy as np
import pytest
from mlflow.entities import DatasetInput, InputTag

from roundlab.tracking import records, sql_record
from roundlab.tracking import store as tracking_store

from .test_tracking_sql_record import _read_back, _record

TAGS = {"roundlab.approach": "rounding", "roundlab.device": "gpu", "mlflow.parentRunId": "p"}


def _dataset_input(digest: str = "abc123") -> DatasetInput:
    logged = mlflow.data.from_numpy(
        np.arange(12.0).reshape(4, 3),
        source="/data/count",
        targets=np.arange(4.0),
        name="count",
        digest=digest,
    )
    return DatasetInput(logged._to_mlflow_entity(), tags=[InputTag("mlflow.data.context", "train")])


def _artifacts(folder):
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text("seed: 3\n")
    (folder / "history.csv").write_text("epoch,loss\n0,1.0\n")
    return folder


def _everything(client, run_id, engine, tmp_path):
    run = client.get_run(run_id)
    read = _read_back(client, run_id, engine)
    read["tags"] = dict(run.data.tags)
    read["info"] = (run.info.run_name, run.info.user_id, run.info.lifecycle_stage)
    read["artifact_uri"] = run.info.artifact_uri.replace(run_id, "<id>")
    read["inputs"] = [
        (i.dataset.name, i.dataset.digest, i.dataset.source_type, i.dataset.source)
        + (i.dataset.schema, i.dataset.profile, [(t.key, t.value) for t in i.tags])
        for i in run.inputs.dataset_inputs
    ]
    read["artifacts"] = {
        a.path: (tmp_path / "down" / run_id / a.path).read_text()
        for a in client.list_artifacts(run_id)
        if client.download_artifacts(run_id, a.path, str(_mkdir(tmp_path / "down" / run_id)))
    }
    read["times"] = run.info.start_time <= run.info.end_time
    with engine.connect() as connection:  # the columns get_run does not show
        read["row"] = tuple(
            connection.exec_driver_sql(
                "SELECT name, source_type, source_name, entry_point_name, user_id, status, "
                "deleted_time, source_version, lifecycle_stage, experiment_id FROM runs "
                "WHERE run_uuid = ?",
                (run_id,),
            ).fetchone()
        )
        read["links"] = [
            tuple(row)
            for row in connection.exec_driver_sql(
                "SELECT source_type, destination_type, step FROM inputs WHERE destination_id = ?",
                (run_id,),
            )
        ]
    return read


def _mkdir(path):
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("status", ["FINISHED", "KILLED"])
def test_a_whole_run_in_one_transaction_reads_back_as_the_clients_own(store, tmp_path, status):
    import sqlalchemy

    client = tracking_store.client(store)
    experiment = tracking_store.experiment_id(client, f"whole-run-{status}")
    params, tags, metrics = _record()

    made = client.create_run(experiment, run_name="member", tags=TAGS).info.run_id
    client.log_inputs(made, datasets=[_dataset_input()])
    client.log_artifacts(made, str(_artifacts(tmp_path / "a")))
    records.end_run(client, made, params, tags, metrics, status)

    new = records.make(client, experiment, "member", TAGS)
    assert new is not None and len(new.run_id) == 32
    _artifacts(records.artifact_dir(new))  # where the member's tracker writes them
    records.record(client, new, (params, tags, metrics), [_dataset_input()], status)

    engine = sqlalchemy.create_engine(store)
    expected = _everything(client, made, engine, tmp_path)
    found = _everything(client, new.run_id, engine, tmp_path)
    engine.dispose()
    assert found == expected
    assert found["status"] == status and found["tags"]["roundlab.device"] == "cpu"
    assert set(found["artifacts"]) == {"config.yaml", "history.csv"}
    assert found["inputs"][0][-1] == [("mlflow.data.context", "train")]


def test_runs_that_share_a_dataset_store_it_once_and_each_link_it(store, tmp_path):
    client = tracking_store.client(store)
    experiment = tracking_store.experiment_id(client, "whole-run-shared")
    made = []
    for name in ("a", "b"):
        new = records.make(client, experiment, name, TAGS)
        records.record(client, new, ([], [], []), [_dataset_input("shared")], "FINISHED")
        made.append(new.run_id)
    with sqlite3.connect(tracking_store.sqlite_file(store)) as plain:
        (datasets,) = plain.execute(
            "SELECT count(*) FROM datasets WHERE experiment_id = ? AND digest = 'shared'",
            (int(experiment),),
        ).fetchone()
    assert datasets == 1
    for run_id in made:
        (entry,) = client.get_run(run_id).inputs.dataset_inputs
        assert entry.dataset.digest == "shared"


def test_a_run_of_a_deleted_experiment_gets_nothing_written(store):
    client = tracking_store.client(store)
    experiment = tracking_store.experiment_id(client, "whole-run-deleted")
    new = records.make(client, experiment, "member", TAGS)
    client.delete_experiment(experiment)
    with pytest.raises(LookupError, match=experiment):
        sql_record.record(
            tracking_store.sqlite_file(store), new, [], [], [], [_dataset_input()], "FINISHED"
        )
    client.restore_experiment(experiment)
    assert client.search_runs([experiment]) == []


def test_a_store_the_transaction_cannot_use_creates_its_runs_through_the_client(tmp_path):
    client = tracking_store.client(f"sqlite:///{tmp_path / 'mlflow.db'}")
    remote = client.create_experiment("elsewhere", artifact_location="s3://bucket/path")
    assert records.make(client, remote, "member", TAGS) is None


def test_a_whole_run_whose_transaction_fails_is_written_in_steps_under_its_id(
    store, tmp_path, monkeypatch
):
    """The one transaction failing (a store locked past the wait) writes nothing of it; the
    run is then created alone under the id its result file names, and its inputs, record and
    end go through the client: it reads back as the one transaction would have left it."""
    client = tracking_store.client(store)
    experiment = tracking_store.experiment_id(client, "whole-run-in-steps")
    record = _record()

    def recorded():
        new = records.make(client, experiment, "member", TAGS)
        _artifacts(records.artifact_dir(new))
        records.record(client, new, record, [_dataset_input()], "FAILED")
        return new

    whole = recorded()
    transaction, calls = sql_record.record, []

    def locked_once(*args):
        calls.append(args[-1])
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return transaction(*args)

    monkeypatch.setattr(sql_record, "record", locked_once)
    steps = recorded()
    assert calls == ["FAILED", "RUNNING"]

    import sqlalchemy

    engine = sqlalchemy.create_engine(store)
    expected = _everything(client, whole.run_id, engine, tmp_path)
    found = _everything(client, steps.run_id, engine, tmp_path)
    engine.dispose()
    assert found == expected
    assert found["status"] == "FAILED" and found["artifacts"]


def test_a_whole_run_that_cannot_be_created_at_all_raises_its_first_error(
    store, monkeypatch, caplog
):
    """Both the transaction and the run alone failing leave nothing, and raise the first
    error; a deleted experiment is not tried twice."""
    client = tracking_store.client(store)
    experiment = tracking_store.experiment_id(client, "whole-run-nowhere")
    calls = []

    def locked(*args):
        calls.append(args[-1])
        raise sqlite3.OperationalError(f"database is locked ({len(calls)})")

    monkeypatch.setattr(sql_record, "record", locked)
    new = records.make(client, experiment, "member", TAGS)
    with pytest.raises(sqlite3.OperationalError, match=r"locked \(1\)"):
        records.record(client, new, _record(), [_dataset_input()], "FINISHED")
    assert calls == ["FINISHED", "RUNNING"]
    assert f"MLflow run {new.run_id} not recorded" in caplog.text
    assert client.search_runs([experiment]) == []

    calls.clear()
    monkeypatch.setattr(sql_record, "record", lambda *a: calls.append(a[-1]) or _gone())
    with pytest.raises(LookupError):
        records.record(client, new, _record(), [], "FINISHED")
    assert calls == ["FINISHED"]


def _gone():
    raise LookupError("experiment 1 is not active")
