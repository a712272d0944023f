"""SIGTERM and SIGINT to real training processes: the run is recorded KILLED (result file and
MLflow run) and the process exits 128 + signal within seconds, with one line and no traceback."""

import signal
import time

import pytest

from roundlab.interruption import Interrupted, interruptible
from roundlab.tracking import store as tracking_store

from .processes import environment, output, result_files, start, wait_for

# Far more epochs than the test waits for: still training when the signal arrives.
LONG = ["trainer.epochs=5000", "trainer.early_stopping.enabled=false"]


def _stop(tmp_path, proc, signum):
    sent = time.monotonic()
    proc.send_signal(signum)
    code = proc.wait(timeout=30)
    return code, time.monotonic() - sent


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_during_training_records_the_run_killed_and_exits_128_plus_signal(
    tmp_path, tiny, signum
):
    proc = start(tmp_path, [*tiny, *LONG, "trainer.verbose=2"])
    wait_for(tmp_path, proc, "Epoch 4/")
    code, seconds = _stop(tmp_path, proc, signum)

    name = signal.Signals(signum).name
    assert code == 128 + signum and seconds < 10
    stderr = output(tmp_path, "err")
    assert f"roundlab.train: interrupted by {name}" in stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    [result] = result_files(tmp_path)
    assert (result.status, result.error) == ("KILLED", f"interrupted by {name}")
    run = tracking_store.client(environment(tmp_path)["MLFLOW_TRACKING_URI"]).get_run(
        result.mlflow_run_id
    )
    assert run.info.status == "KILLED"
    assert run.data.tags["roundlab.error"] == f"interrupted by {name}"


def test_sigterm_during_a_stacked_group_records_every_member_and_the_parent_killed(tmp_path, tiny):
    proc = start(
        tmp_path,
        [
            "-m",
            *tiny,
            *LONG,
            "hydra/launcher=vectorized",
            "approach=rounding",
            "activation=soft_round",
            "seed=0,1,2",
            f"hydra.sweep.dir={tmp_path / 'sweep'}",
        ],
    )
    wait_for(tmp_path, proc, "group of 3:")
    time.sleep(4)  # past tracing, into the epochs
    code, seconds = _stop(tmp_path, proc, signal.SIGTERM)

    assert code == 143 and seconds < 10
    assert "Traceback" not in output(tmp_path, "err")
    found = result_files(tmp_path)
    assert sorted(r.seed for r in found) == [0, 1, 2]
    assert {(r.status, r.error) for r in found} == {("KILLED", "interrupted by SIGTERM")}
    client = tracking_store.client(environment(tmp_path)["MLFLOW_TRACKING_URI"])
    runs = client.search_runs([client.get_experiment_by_name("count").experiment_id])
    assert sorted(r.info.status for r in runs) == ["KILLED"] * 4  # 3 members and their parent
    [parent] = [r for r in runs if r.data.tags.get("roundlab.role") == "sweep"]
    assert parent.data.metrics["jobs_killed"] == 3.0


def test_interruptible_raises_on_sigterm_once_and_restores_the_previous_handlers():
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    with pytest.raises(Interrupted) as caught, interruptible():
        signal.raise_signal(signal.SIGTERM)
    assert caught.value.exit_code == 143 and caught.value.reason == "interrupted by SIGTERM"
    assert {s: signal.getsignal(s) for s in before} == before


def test_a_second_signal_while_recording_the_first_is_ignored():
    with pytest.raises(Interrupted) as caught, interruptible():
        try:
            signal.raise_signal(signal.SIGINT)
        except Interrupted:
            signal.raise_signal(signal.SIGTERM)  # ignored: the first is being recorded
            raise
    assert caught.value.exit_code == 130
