"""The sweep's task queue (:mod:`roundlab.sweep.queue`) on its own: tasks are taken once, in
order, never while they are being written, and a worker stops when told."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from roundlab.sweep import children, queue
from roundlab.sweep.plan import Multirun
from roundlab.sweep.queue import Task, Worker


def _task(family: str) -> Task:
    return Task((family,), ((f"approach={family}", "seed=0"),), 1)


def test_a_task_being_written_is_not_taken(tmp_path):
    # the temporary file of a task being written (paths.atomic_path's name) matches *.yaml
    (tmp_path / queue.PENDING).mkdir(parents=True)
    writing = tmp_path / queue.PENDING / ".000-0001-b.yaml.tmp-1-ab12.yaml"
    writing.write_text("families: [b]\n")
    (name,) = queue.enqueue(tmp_path, 0, [_task("a")])
    worker = Worker(tmp_path, "worker-1", ["trainer.epochs=2"])
    assert worker.take()
    assert worker.batch() == [["approach=a", "seed=0", "trainer.epochs=2"]]
    assert writing.is_file()  # left to its writer
    assert not queue.waiting(tmp_path)
    queue.stop(tmp_path)
    assert not worker.take()
    assert queue.finished(tmp_path, [name])


def test_tasks_are_taken_once_deepest_round_first_then_cost_order(tmp_path):
    """A family's later round is the end of its chain: taken before the first round's rest."""
    names = queue.enqueue(tmp_path, 0, [_task("costly"), _task("cheap")])
    names += queue.enqueue(tmp_path, 1, [_task("late")])
    first, second = Worker(tmp_path, "worker-1", []), Worker(tmp_path, "worker-2", [])
    taken = []
    for worker in (first, second, first):
        assert worker.take()
        taken.append(worker.batch()[0][0])
    assert taken == ["approach=late", "approach=costly", "approach=cheap"]
    queue.stop(tmp_path)
    assert not first.take() and not second.take()
    assert queue.finished(tmp_path, names)
    assert [t["families"] for t in queue.taken(tmp_path, "worker-1")] == [["cheap"], ["late"]]


def test_a_worker_takes_the_later_round_of_a_family_it_trained_before_the_rest_of_that_round(
    tmp_path,
):
    """Its networks and traced programs are kept (roundlab.sweep.networks); the deepest round
    still comes first, and a worker with no such family takes the queue's order."""
    queue.enqueue(tmp_path, 0, [_task("ordinal"), _task("sine_round")])
    first, second = Worker(tmp_path, "worker-1", []), Worker(tmp_path, "worker-2", [])
    assert first.take() and second.take()  # ordinal, then sine_round
    queue.enqueue(
        tmp_path,
        1,
        [_task("rate_extensions/1/ordinal"), _task("rate_extensions/1/sine_round")],
    )
    queue.enqueue(tmp_path, 2, [_task("rate_extensions/2/approaches")])
    assert second.take()
    assert second.batch()[0][0] == "approach=rate_extensions/2/approaches"  # deepest first
    assert second.take()
    assert second.batch()[0][0] == "approach=rate_extensions/1/sine_round"  # its own family
    assert first.take()
    assert first.batch()[0][0] == "approach=rate_extensions/1/ordinal"


def test_a_multirun_that_ignores_the_stop_signal_is_killed_after_the_wait(monkeypatch):
    stuck = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "print('ready', flush=True); time.sleep(600)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert stuck.stdout.readline().strip() == "ready"
    monkeypatch.setattr(children, "STOP_WAIT_S", 1.0)
    started = time.monotonic()
    children._stop(
        [children.Launched(Multirun("worker-1", (), ()), [], stuck, None)], signal.SIGTERM
    )
    assert time.monotonic() - started < 10
    assert stuck.returncode == -signal.SIGKILL


# A worker whose sweep (its parent here) exits without writing STOP: the sweep's death signal
# was lost, and nothing else would ever end the wait.
_ORPHAN = """
import os, sys
from pathlib import Path
from roundlab.sweep.queue import Worker
queue, report = Path(sys.argv[1]), Path(sys.argv[2])
def say(text):  # whole, so the test never reads half of it
    Path(f"{report}.tmp").write_text(text)
    os.replace(f"{report}.tmp", report)
worker = Worker(queue, "worker-1", [])
say(f"waiting {os.getpid()}")
say(f"took {worker.take()}")
"""
_PARENT = """
import subprocess, sys, time
from pathlib import Path
report = Path(sys.argv[3])
subprocess.Popen([sys.executable, "-c", sys.argv[1], sys.argv[2], sys.argv[3]])
while not report.is_file():
    time.sleep(0.05)
"""


def test_a_waiting_worker_stops_when_the_sweep_that_started_it_is_gone(tmp_path):
    report = tmp_path / "report"
    subprocess.run(
        [sys.executable, "-c", _PARENT, _ORPHAN, str(tmp_path / "queue"), str(report)],
        check=True,
        timeout=60,
    )
    orphan = int(report.read_text().split()[1])
    deadline = time.monotonic() + 20
    while report.read_text().startswith("waiting") and time.monotonic() < deadline:
        time.sleep(0.1)
    if report.read_text().startswith("waiting"):
        os.kill(orphan, signal.SIGKILL)  # not left behind by a failing test
    assert report.read_text() == "took False"
    assert not (tmp_path / "queue" / queue.STOP).exists()


# A worker whose sweep is gone while tasks are still queued (the sweep was killed outright
# between queueing a round and the workers taking it).
_ORPHAN_WITH_TASKS = """
import os, sys, time
from pathlib import Path
from roundlab.sweep.queue import Worker
queue, report = Path(sys.argv[1]), Path(sys.argv[2])
worker = Worker(queue, "worker-1", [])
Path(f"{report}.tmp").write_text(f"waiting {os.getpid()}")
os.replace(f"{report}.tmp", report)
while os.getppid() == worker.parent:
    time.sleep(0.05)
Path(f"{report}.tmp").write_text(f"took {worker.take()}")
os.replace(f"{report}.tmp", report)
"""


def test_a_worker_whose_sweep_is_gone_takes_no_task_left_in_the_queue(tmp_path):
    """Otherwise it trains the dead sweep's tasks (or, the queue being the sweep directory's,
    the next sweep's) behind that sweep's back."""
    queue.enqueue(tmp_path / "queue", 0, [_task("a")])
    report = tmp_path / "report"
    subprocess.run(
        [sys.executable, "-c", _PARENT, _ORPHAN_WITH_TASKS, str(tmp_path / "queue"), str(report)],
        check=True,
        timeout=60,
    )
    deadline = time.monotonic() + 20
    while report.read_text().startswith("waiting") and time.monotonic() < deadline:
        time.sleep(0.1)
    if report.read_text().startswith("waiting"):
        os.kill(int(report.read_text().split()[1]), signal.SIGKILL)
    assert report.read_text() == "took False"
    assert queue.waiting(tmp_path / "queue")  # left for the next sweep
