"""After kill -9 (which nothing can catch) the next sweep marks the runs left RUNNING KILLED,
and makes its own parent run whose counts are its own jobs'."""

import os
import socket

from roundlab.tracking import store as tracking_store
from roundlab.tracking.stale_runs import KILLED_TAG, alive, stale_reason

from .processes import environment, run, start, wait_for


def test_the_next_sweep_marks_a_killed_sweeps_runs_killed_and_counts_only_its_own_jobs(
    tmp_path, tiny
):
    sweep = [f"hydra.sweep.dir={tmp_path / 'sweep'}", "approach=regression"]
    first = start(
        tmp_path,
        ["-m", *tiny, *sweep, "seed=0", "trainer.epochs=5000", "trainer.verbose=2"],
    )
    wait_for(tmp_path, first, "Epoch 3/")
    first.kill()
    first.wait(timeout=30)
    client = tracking_store.client(environment(tmp_path)["MLFLOW_TRACKING_URI"])
    exp_id = client.get_experiment_by_name("count").experiment_id
    left = client.search_runs([exp_id])
    assert sorted(r.info.status for r in left) == ["RUNNING", "RUNNING"]  # parent and child

    code, stdout, stderr, _ = run(tmp_path, ["-m", *tiny, *sweep, "seed=0,1", "trainer.epochs=2"])
    assert code == 0, stderr[-2000:]
    for old in left:
        now = client.get_run(old.info.run_id)
        assert now.info.status == "KILLED"
        assert "kill -9" in now.data.tags[KILLED_TAG]
    parents = [
        r
        for r in client.search_runs([exp_id])
        if r.data.tags.get("roundlab.role") == "sweep" and r.info.status == "FINISHED"
    ]
    [parent] = parents
    assert parent.info.run_id not in {r.info.run_id for r in left}
    assert parent.data.metrics == {
        "jobs_finished": 2.0,
        "jobs_failed": 0.0,
        "jobs_killed": 0.0,
        "jobs_expected_failures": 0.0,
    }


def test_a_running_run_of_a_live_process_in_another_directory_is_left_alone(tmp_path):
    tags = {"roundlab.host": socket.gethostname(), "roundlab.pid": str(os.getpid())}
    assert stale_reason(tags, tmp_path / "new", "id-2") is None
    same_dir = {**tags, "roundlab.sweep_dir": str(tmp_path / "new"), "roundlab.sweep_id": "id-1"}
    assert "new sweep into" in stale_reason(same_dir, tmp_path / "new", "id-2")
    assert stale_reason({**same_dir, "roundlab.sweep_id": "id-2"}, tmp_path / "new", "id-2") is None


def test_a_process_that_exited_is_not_alive(tmp_path):
    import subprocess
    import sys

    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    assert alive(os.getpid()) and not alive(int(ended.stdout))
