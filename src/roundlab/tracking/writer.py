"""MLflow writes done behind the caller's back, in order, and complete before the process ends.

A stacked group's members are recorded one after another in one process; each member's MLflow
run is several transactions of the store, each waiting for the disk or a server.
:func:`submit` hands such a write to a background thread, which runs the writes in the order
they came, so the caller goes on to the next member, and the next group's training, while the
store is written: the waits happen outside the interpreter lock. :func:`create` runs a run's
creation on a second thread, whose result (the run id, which the result file records) the
caller collects when it needs it: the next member's run is created while the last one's record
is still being written, and while the member is evaluated and its model saved. A run's writes
are submitted once its id is known, so they never overtake its creation.

MLflow's own asynchronous logging (``log_batch(..., synchronous=False)``) covers params,
metrics and tags only, not inputs, artifacts or a run's end, and ``set_terminated`` shuts its
queue down after every run; one queue of whole writes keeps a run's steps together.

Nothing is lost when the process ends: :func:`flush` waits until every creation and write
submitted so far is done; it runs at exit (``atexit``, before MLflow's own exit hooks), when an
interruption has been recorded (:func:`roundlab.sweep.vectorized.record_killed`) and before a
sweep's parents count their children (:func:`roundlab.tracking.parents.close_parents`). A
write that raises is logged and costs that run's remaining record, never the caller: the result
file, not MLflow, is the record the report reads.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

log = logging.getLogger(__name__)


class _Lane:
    """One daemon thread running the jobs of its queue in order. Daemon: a thread the
    interpreter joins before ``atexit`` could never be told to stop; :func:`flush` at exit
    waits for its jobs instead."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.jobs: queue.Queue[Callable[[], None]] | None = None
        self.lock = threading.Lock()

    def put(self, job: Callable[[], None]) -> None:
        with self.lock:
            if self.jobs is None:
                self.jobs = queue.Queue()
                threading.Thread(
                    target=_work, args=(self.jobs,), name=self.name, daemon=True
                ).start()
                atexit.register(flush)  # registered after mlflow's import: runs before its hooks
        self.jobs.put(job)

    def join(self) -> None:
        if self.jobs is not None:
            self.jobs.join()


_creations = _Lane("mlflow-create")
_writes = _Lane("mlflow-write")


def create(make: Callable[[], Any]) -> Future:
    """``make()`` (a run's creation) on the creation thread; its result or error in the
    returned future."""
    done: Future = Future()

    def job() -> None:
        try:
            done.set_result(make())
        except Exception as err:  # the caller's, when it collects the result
            done.set_exception(err)

    _creations.put(job)
    return done


def submit(write: Callable[[], None]) -> None:
    """Run ``write`` on the writing thread, after every write submitted before it. A write that
    raises is logged: tracking never fails a run, nor stops later runs' writes."""

    def job() -> None:
        try:
            write()
        except Exception as err:
            log.warning("MLflow write failed: %s: %s", type(err).__name__, err)

    _writes.put(job)


def flush() -> None:
    """Wait until every creation and write submitted so far is done (at once when none is)."""
    _creations.join()
    _writes.join()


def _work(jobs: queue.Queue[Callable[[], None]]) -> None:
    while True:
        job = jobs.get()
        try:
            job()
        finally:
            jobs.task_done()
