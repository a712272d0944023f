"""A stacked group's members recorded the cheap way (one client, batched writes, the run's
record written in the background) are really in the MLflow store, and what is deferred is
complete once the process exits or an interruption has been recorded."""

import signal
import subprocess
import sys
import time

import pytest

from roundlab.interruption import Interrupted
from roundlab.run.job import resolve
from roundlab.sweep import vectorized
from roundlab.tracking import parents, records, sql_record, tracker, writer
from roundlab.tracking import store as tracking_store
from roundlab.tracking.params import run_params
from roundlab.tracking.records import batches
from roundlab.tracking.tracker import RunTracker


@pytest.fixture
def group(compose, tmp_path):
    cfgs = [
        resolve(compose("approach=rounding", "activation=soft_round", f"seed={s}"))
        for s in range(3)
    ]
    parents.begin_sweep(tmp_path / "sweep")
    return vectorized.train_group(cfgs)


def test_a_recorded_group_has_every_run_finished_with_params_history_and_artifacts(
    group, store, tmp_path
):
    sweep = tmp_path / "sweep"
    recorded = [vectorized.record_member(group, i, sweep) for i in range(3)]
    writer.flush()

    client = tracking_store.client(store)
    runs = [client.get_run(r.mlflow_run_id) for r in recorded]
    assert [r.info.status for r in runs] == ["FINISHED"] * 3
    assert len({r.data.tags["mlflow.parentRunId"] for r in runs}) == 1  # one parent
    for result, run in zip(recorded, runs, strict=True):
        expected = {k: str(v) for k, v in run_params(result.config).items()}
        assert run.data.params == expected
        losses = client.get_metric_history(run.info.run_id, "train/loss")
        assert [m.step for m in losses] == list(range(len(result.history["loss"])))
        assert [m.value for m in losses] == pytest.approx(result.history["loss"])
        assert run.data.metrics["test/exact_match"] == result.metrics["test"]["exact_match"]
        paths = sorted(a.path for a in client.list_artifacts(run.info.run_id))
        name = result.key.result_path(tmp_path / "results").name
        assert paths == sorted(["config.yaml", "history.csv", name])
        (dataset,) = run.inputs.dataset_inputs
        assert dataset.dataset.name == "count"


def test_a_member_whose_artifacts_cannot_be_written_is_still_recorded_finished(
    group, store, tmp_path, monkeypatch, caplog
):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    monkeypatch.setattr(records, "artifact_dir", lambda new: blocked / new.run_id)
    result = vectorized.record_member(group, 0, tmp_path / "sweep")
    writer.flush()

    client = tracking_store.client(store)
    run = client.get_run(result.mlflow_run_id)
    assert run.info.status == "FINISHED"
    assert run.data.params == {k: str(v) for k, v in run_params(result.config).items()}
    assert run.data.metrics["test/exact_match"] == result.metrics["test"]["exact_match"]
    assert client.list_artifacts(run.info.run_id) == []
    assert f"MLflow run {run.info.run_id}: artifacts not written" in caplog.text


def test_a_signal_while_a_members_artifacts_are_written_keeps_its_params_and_dataset(
    group, store, tmp_path, monkeypatch
):
    write, calls = tracker._write_artifacts, []

    def interrupted_once(*args):
        calls.append(args[0])
        if len(calls) == 1:
            raise Interrupted(signal.SIGTERM)
        write(*args)

    monkeypatch.setattr(tracker, "_write_artifacts", interrupted_once)
    with pytest.raises(Interrupted):
        vectorized.record_member(group, 0, tmp_path / "sweep")
    writer.flush()

    (record,) = group.recordings.values()
    run = tracking_store.client(store).get_run(record.result.mlflow_run_id)
    assert len(calls) == 2  # the record was closed again after the signal
    assert run.data.params == {k: str(v) for k, v in run_params(record.result.config).items()}
    (dataset,) = run.inputs.dataset_inputs
    assert dataset.dataset.name == "count"


def test_an_interruption_ends_every_member_in_the_store_before_it_goes_on(
    group, store, tmp_path, monkeypatch
):
    client = tracking_store.client(store)
    for name in ("write", "record"):  # a store slow enough that a missing flush shows
        monkeypatch.setattr(sql_record, name, _slowed(getattr(sql_record, name)))
    sweep = tmp_path / "sweep"
    first = vectorized.record_member(group, 0, sweep)
    vectorized.record_killed(group.cfgs, "interrupted by SIGTERM", sweep, group.recordings)

    statuses = {
        r.info.run_id: r.info.status
        for r in client.search_runs(
            [client.get_experiment_by_name("count").experiment_id],
            filter_string=f"tags.`{parents.SWEEP_TAG}` = '{sweep.absolute()}'",
        )
        if "mlflow.parentRunId" in r.data.tags
    }
    assert statuses.pop(first.mlflow_run_id) == "FINISHED"
    assert sorted(statuses.values()) == ["KILLED", "KILLED"]
    for run_id in statuses:
        run = client.get_run(run_id)
        assert run.data.tags["roundlab.error"] == "interrupted by SIGTERM"
        assert run.data.params["seed"] in ("1", "2")


def test_writes_still_pending_when_the_process_exits_are_done_first(tmp_path):
    done = tmp_path / "written"
    code = (
        "import time\n"
        "from pathlib import Path\n"
        "from roundlab.tracking import writer\n"
        "def slow():\n"
        "    time.sleep(0.5)\n"
        f"    Path({str(done)!r}).write_text('ok')\n"
        "writer.submit(slow)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert done.read_text() == "ok"


def test_batches_keep_within_mlflow_limits_and_lose_nothing():
    params, tags, metrics = list(range(250)), list(range(30)), list(range(2500))
    found = batches(params, tags, metrics)
    shape = [(len(b["params"]), len(b["tags"]), len(b["metrics"])) for b in found]
    # 1000 entries a batch at most, of which 100 params and 100 tags, 1000 metrics
    assert shape == [(100, 30, 870), (100, 0, 900), (50, 0, 730)]
    assert [x for b in found for x in b["metrics"]] == metrics
    assert [x for b in found for x in b["params"]] == params
    assert batches([], [], []) == [{"params": [], "tags": [], "metrics": []}]


class _FailingStore:
    """An MLflow client whose store refuses writes (a full disk, a server error)."""

    tracking_uri = "http://127.0.0.1:5000"  # a server: its writes go through the client

    def __init__(self) -> None:
        self.ended: list[tuple[str, str]] = []

    def log_artifacts(self, run_id, folder):
        pass

    def log_batch(self, run_id, **batch):
        raise OSError("disk full")

    def set_terminated(self, run_id, status):
        self.ended.append((run_id, status))


def test_a_run_whose_record_cannot_be_written_still_ends_with_its_status(tmp_path):
    store = _FailingStore()
    folder = tmp_path / "artifacts"
    folder.mkdir()
    record = (["param"], ["tag"], ["metric"])
    with pytest.raises(OSError, match="disk full"):  # the writer logs it as a warning
        RunTracker._end(store, "run-1", record, [], folder, None, "FINISHED")
    assert store.ended == [("run-1", "FINISHED")]  # not left RUNNING
    assert not folder.exists()


def _slowed(write):
    def slow(*args, **kwargs):
        time.sleep(0.3)
        return write(*args, **kwargs)

    return slow
