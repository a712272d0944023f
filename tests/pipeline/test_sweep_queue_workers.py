"""The sweep's task queue and its long-lived workers (:mod:`roundlab.sweep.queue`), with real
processes: every round, not only the first, gets up to ``processes`` workers; two sweeps that
share a sweep directory keep each one's runs in its own results directory; and with a cluster
launcher a round's families are submitted together, not one family's jobs after another's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from roundlab.sweep import extend
from roundlab.sweep.plan import plan
from roundlab.sweep.profile import load_profile
from roundlab.sweep.resamples import from_configs

pytestmark = pytest.mark.slow


def _sweep_command(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "roundlab.sweep", "--params", str(root / "params.yaml"), *args]


def _env(root: Path) -> dict[str, str]:
    """The project's own store: not the session's MLFLOW_TRACKING_URI (tests/conftest.py)."""
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    return {**env, "ROUNDLAB_ROOT": str(root)}


def _sweep(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        _sweep_command(root, *args),
        cwd=root,
        env=_env(root),
        text=True,
        capture_output=True,
        timeout=600,
    )


def _planned(results: Path) -> list[Path]:
    record = yaml.safe_load((results / "count" / "_sweep.yaml").read_text())
    return [results / p for p in record["planned"]]


def test_rounds_after_a_round_with_one_task_still_get_processes_workers(tmp_path, sweep_project):
    root = sweep_project(tmp_path, processes=2)
    first = _sweep(root)
    assert first.returncode == 0, first.stderr[-3000:]
    log = yaml.safe_load((root / "multirun" / "_sweep_log.yaml").read_text())
    assert [r["tasks"] for r in log["rounds"]] == [3, 2, 2]
    manifest = (root / "results" / "count" / "_sweep.yaml").read_bytes()
    # the planned runs, then each round's extensions in the plan's order of families, as the
    # report recomputes them, whichever family's round ended first
    profile = load_profile(root / "params.yaml")
    multiruns = plan(profile, resamples_of=from_configs)
    expected = [*multiruns, *extend.all_rounds(profile, multiruns, root / "results")]
    assert _planned(root / "results") == [
        run.result_path(root / "results") for m in expected for run in m.runs
    ]
    # One planned run to train again, and every extension run: round 0 has one task to queue,
    # rounds 1 and 2 two each, as in the first sweep.
    results = root / "results"
    (results / "count/rounding/sigmoid_round-steepness=5/lr=0.01/seed=0.json").unlink()
    for path in results.glob("count/*/*/lr=0.0[39]/seed=*.json"):
        path.unlink()

    again = _sweep(root)
    assert again.returncode == 0, again.stderr[-3000:]
    log = yaml.safe_load((root / "multirun" / "_sweep_log.yaml").read_text())
    assert [r["tasks"] for r in log["rounds"]] == [1, 2, 2]
    # the same plan: the same record, byte for byte
    assert (root / "results" / "count" / "_sweep.yaml").read_bytes() == manifest
    # Two tasks in a round and processes: 2, so two workers; the sweep started as many as the
    # first round needed and kept that number for the later rounds.
    assert len(log["multiruns"]) == 2, [m["families"] for m in log["multiruns"]]


def test_two_sweeps_sharing_a_sweep_dir_keep_their_runs_in_their_own_results(
    tmp_path, sweep_project
):
    root = sweep_project(tmp_path, processes=1, rate_extensions=0)
    sweep_dir, a, b = root / "multirun", root / "results-a", root / "results-b"
    first = subprocess.Popen(
        _sweep_command(root, "--results", str(a), "--sweep-dir", str(sweep_dir)),
        cwd=root,
        env=_env(root),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not list((sweep_dir / "_queue" / "pending").glob("*.yaml")):
            assert time.monotonic() < deadline and first.poll() is None, (
                "the first sweep queued nothing"
            )
            time.sleep(0.1)
        second = _sweep(root, "--results", str(b), "--sweep-dir", str(sweep_dir))
    finally:
        out, err = first.communicate(timeout=600)
    assert first.returncode == 0, err[-3000:]
    missing_a = [str(p.relative_to(a)) for p in _planned(a) if not p.is_file()]
    assert missing_a == [], f"the first sweep ended 0 without {missing_a}\n{out}"
    # The second sweep either refuses the directory in use or trains its whole plan into b.
    if second.returncode == 0:
        missing_b = [str(p.relative_to(b)) for p in _planned(b) if not p.is_file()]
        assert missing_b == [], f"the second sweep ended 0 without {missing_b}\n{second.stdout}"


def test_a_cluster_launcher_submits_a_rounds_families_together(tmp_path, sweep_project):
    """With processes: 1 the one worker's round is one submission (its families' stacked
    groups in flight at once, up to array_parallelism), as before the queue, not one submission
    per family waited on before the next."""
    root = sweep_project(
        tmp_path, processes=1, rate_extensions=0, launcher="vectorized_submitit_local"
    )
    done = _sweep(root)
    assert done.returncode == 0, done.stderr[-3000:]
    worker_log = (root / "multirun" / "worker-1" / "multirun.log").read_text()
    submitted = [
        int(n) for n in re.findall(r"(\d+) job\(s\) submitted through submitit", worker_log)
    ]
    # one submission of three groups: sigmoid_round's, regression's and hard_round's
    assert submitted == [3], submitted


def test_a_sweep_that_fails_between_rounds_leaves_no_worker_running(tmp_path, sweep_project):
    """Planning round 1 fails (here: its manifest cannot be written, the disk full): the sweep
    returns 1, and its workers, idle and waiting for round 1's tasks, stop with it rather than
    poll the queue for as long as the calling process (``roundlab study``) lives."""
    root = sweep_project(tmp_path, processes=2, rate_extensions=1)
    script = (
        "import os, sys, time\n"
        "from roundlab.errors import WriteFailed\n"
        "from roundlab.sweep import extend\n"
        "def full(*args, **kwargs):\n"
        "    raise WriteFailed('no space left on device', 28)\n"
        "extend.extensions = full\n"
        "from roundlab.sweep.cli import main\n"
        f"code = main(['--params', {str(root / 'params.yaml')!r}])\n"
        "time.sleep(3)\n"
        "me = os.getpid()\n"
        "kids = open(f'/proc/{me}/task/{me}/children').read().split()\n"
        "alive = [k for k in kids if open(f'/proc/{k}/stat').read().split()[2] != 'Z']\n"
        "print('exit', code, 'running', len(alive))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=root,
        env=_env(root),
        text=True,
        capture_output=True,
        timeout=600,
    )
    assert "exit 1 running 0" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]


def test_workers_that_exit_at_once_leave_every_run_and_log_line_written(tmp_path, sweep_project):
    """A worker skips the interpreter's teardown once its tasks ran (roundlab.train): its
    background MLflow writes, its parents' end and its log's last lines are still all there."""
    import sqlite3

    root = sweep_project(tmp_path, processes=2, rate_extensions=0, tracking=True)
    done = _sweep(root)
    assert done.returncode == 0, done.stderr[-3000:]
    log = yaml.safe_load((root / "multirun" / "_sweep_log.yaml").read_text())
    assert [m["exit_code"] for m in log["multiruns"]] == [0, 0]
    for m in log["multiruns"]:
        tail = (root / "multirun" / m["family"] / "multirun.log").read_text().splitlines()[-1]
        assert tail.startswith("sweep: "), tail
    planned = _planned(root / "results")
    with sqlite3.connect(root / "mlflow.db") as store:
        statuses = dict(
            store.execute(
                "SELECT r.status, count(*) FROM runs r JOIN tags t ON t.run_uuid = r.run_uuid "
                "AND t.key = 'roundlab.role' AND t.value = 'sweep' GROUP BY r.status"
            ).fetchall()
        )
        children = store.execute(
            "SELECT r.status, count(*) FROM runs r WHERE EXISTS (SELECT 1 FROM tags t WHERE "
            "t.run_uuid = r.run_uuid AND t.key = 'mlflow.parentRunId') GROUP BY r.status"
        ).fetchall()
    # each worker that trained has its parent, ended; a worker that found the queue empty (the
    # other took every task while it started) opened none
    trained = [m for m in log["multiruns"] if m["runs"]]
    assert trained and statuses == {"FINISHED": len(trained)}
    assert sum(n for _, n in children) == len(planned)
    assert {status for status, _ in children} <= {"FINISHED", "FAILED"}


@pytest.mark.parametrize("signalled", [False, True])
def test_a_worker_signalled_while_it_exits_finishes_its_exit_steps_and_says_so(tmp_path, signalled):
    """A signal that lands among a worker's exit handlers (roundlab.train._exit_now) neither
    cuts the later handlers short nor leaves exit code 0."""
    written = tmp_path / "last_handler.txt"
    script = (
        "import atexit, os, pathlib, signal, time\n"
        "from roundlab import train\n"
        f"atexit.register(pathlib.Path({str(written)!r}).write_text, 'ran')\n"  # runs last
        f"if {signalled}:\n"
        "    atexit.register(lambda: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(0.5)))\n"
        "train._exit_now()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], text=True, capture_output=True, timeout=120
    )
    assert written.read_text() == "ran"
    assert done.returncode == (143 if signalled else 0), done.stderr[-2000:]
    assert ("SIGTERM while exiting, after its tasks" in done.stderr) == signalled
