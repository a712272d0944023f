"""MLflow writes done behind the caller's back, in order, and complete before the process ends.

A stacked group's members are recorded one after another in one process; each member's MLflow
run costs about 75 ms written synchronously into an sqlite store (the ORM inserting a few
hundred metric rows, a disk sync per transaction), three times the rest of its recording.
:func:`submit` hands such a write to one background thread per process, which runs the writes
in the order they came (a run's writes never overtake its creation, nor one run's end another
run's), so the caller goes on to the next member, and the next group's training, while the
store is written: the disk syncs wait outside the interpreter lock, and TensorFlow's training
leaves it free for the ORM.

MLflow's own asynchronous logging (``log_batch(..., synchronous=False)``) covers params,
metrics and tags only, not inputs, artifacts or a run's end, and ``set_terminated`` shuts its
queue down after every run; one queue of whole writes keeps a run's steps together.

Nothing is lost when the process ends: :func:`flush` waits until every write submitted so far
is done; it runs at exit (``atexit``, before MLflow's own exit hooks), when an interruption has
been recorded (:func:`roundlab.sweep.vectorized.record_killed`) and before a sweep's parents
count their children (:func:`roundlab.tracking.parents.close_parents`). A write that raises is
logged and costs that run's remaining record, never the caller: the result file, not MLflow,
is the record the report reads.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

_lock = threading.Lock()
_queue: queue.Queue[Callable[[], None]] | None = None


def submit(write: Callable[[], None]) -> None:
    """Run ``write`` on the writer thread, after every write submitted before it."""
    _writes().put(write)


def flush() -> None:
    """Wait until every write submitted so far is done (at once when none is pending)."""
    if _queue is not None:
        _queue.join()


def _writes() -> queue.Queue[Callable[[], None]]:
    global _queue
    with _lock:
        if _queue is None:
            _queue = queue.Queue()
            # Daemon: a thread the interpreter would join before atexit could never be told to
            # stop; flush() at exit waits for its work instead.
            threading.Thread(target=_work, args=(_queue,), name="mlflow-writer", daemon=True).start()
            atexit.register(flush)
        return _queue


def _work(writes: queue.Queue[Callable[[], None]]) -> None:
    while True:
        write = writes.get()
        try:
            write()
        except Exception as err:  # tracking must never fail a run, nor stop later runs' writes
            log.warning("MLflow write failed: %s: %s", type(err).__name__, err)
        finally:
            writes.task_done()
