"""SIGINT and SIGTERM as an exception in the main thread, so a run can record itself KILLED.

Python turns SIGINT into ``KeyboardInterrupt`` but leaves SIGTERM (what SLURM and other
schedulers send) to kill the process outright, with no result file and the MLflow run left
RUNNING. Inside :func:`interruptible` both raise :class:`Interrupted`, a ``KeyboardInterrupt``
subclass, so no ``except Exception`` on the way (Keras, Hydra's ``run_job``) swallows it, and the
bookkeeping in :meth:`roundlab.run.recording.Recording.capture` runs before the process exits with
``128 + signal number`` (130 for SIGINT, 143 for SIGTERM), the shell's convention.

An exception raised from a signal handler lands wherever the main thread happens to be, and
a few places lose it. The handler guards against each:

- **Inside an import** (TensorFlow imports lazily, in the middle of a gradient): an exception
  out of the import machinery leaves the module half-initialised in ``sys.modules``, so every
  later use fails with an unrelated ``AttributeError``, and CPython reports ``SystemError``
  instead of the interruption. There the handler does not raise; it sends the signal again
  :data:`REDELIVER_S` later, until it lands outside the import.
- **Anywhere it is swallowed or turned into another error**: in a ``__del__`` or weakref
  callback (printed as "Exception ignored" and dropped), or in library code whose ``finally``
  fails in turn (Hydra's config source closes a file it never opened). While the block lasts,
  the signal is sent again every :data:`WATCH_S`: if no exception carrying an
  :class:`Interrupted` is being handled at that moment, the interruption was lost and is
  raised again."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)
REDELIVER_S = 0.05  # how soon a signal that landed inside an import is sent again
WATCH_S = 1.0  # how often an interruption raised is checked for being lost
# Called with the name of every :func:`checkpoint` passed; empty unless a test fills it.
CHECKPOINT_HOOKS: list[Callable[[str], None]] = []


class Interrupted(KeyboardInterrupt):
    """A run stopped by ``signum``; ``reason`` is what its result file and MLflow run say."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.reason = f"interrupted by {signal.Signals(signum).name}"
        super().__init__(self.reason)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Raise :class:`Interrupted` on the first SIGINT or SIGTERM inside the block; a signal
    while an interruption is being handled (recorded, on its way up) is logged and ignored, so
    the result file and the MLflow run are finished rather than cut off halfway. The previous
    handlers come back on exit. Outside the main thread (where Python cannot install handlers)
    a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    guard = _Guard()
    previous: dict[int, Any] = {}
    unraisable = sys.unraisablehook
    try:
        # inside the try, each handler kept before it is replaced: a signal landing between
        # two steps (right after a call) still finds every one of them undone
        for s in SIGNALS:
            previous[s] = signal.getsignal(s)
            signal.signal(s, guard.handle)
        sys.unraisablehook = guard.unraisable(unraisable)
        yield
    finally:
        # first, before any call (where a signal can land): the handler no longer raises
        guard.closed = True
        late = guard.close()
        sys.unraisablehook = unraisable
        for s, old in previous.items():
            signal.signal(s, old)
        if late is not None:
            raise Interrupted(late)


class _Guard:
    """The handler of one :func:`interruptible` block, and the timer that sends its signal
    again (after an import, or to check that a raised interruption was not lost)."""

    def __init__(self) -> None:
        # re-entrant: the handler can run in the main thread while it holds the lock
        self.lock = threading.RLock()
        self.raised: int | None = None  # the signal raised as Interrupted
        self.deferred: int | None = None
        self.late: int | None = None  # a signal that came while the block was being left
        self.own = 0  # signals the timer sent and the handler has not seen yet
        self.timer: threading.Timer | None = None
        self.closed = False

    def handle(self, signum: int, frame: FrameType | None) -> None:
        with self.lock:
            own, self.own = self.own > 0, max(0, self.own - 1)
            closed = self.closed
        if carried(sys.exc_info()[1]) is not None:  # being recorded, or on its way up
            if not own:
                log.warning(
                    "%s ignored: still recording the interruption", signal.strsignal(signum)
                )
            elif self.raised:
                self._send_later(signum, WATCH_S)
            return
        if closed:  # raised on leaving, once the previous handlers are back
            if not own:
                self.late = signum
            return
        if _importing(frame):
            self.deferred = signum
            self._send_later(signum, REDELIVER_S)
            return
        if self.raised:
            log.warning("the interruption was lost on its way up; raising it again")
        self.raised, self.deferred = signum, None
        self._send_later(signum, WATCH_S)
        raise Interrupted(signum)

    def unraisable(self, previous: Callable[[Any], None]) -> Callable[[Any], None]:
        """``sys.unraisablehook`` for the block: an interruption raised in a ``__del__`` is
        not printed as an ignored exception; the watch raises it again."""

        def hook(unraisable: Any) -> None:
            if not isinstance(unraisable.exc_value, Interrupted):
                previous(unraisable)

        return hook

    def close(self) -> int | None:
        """Stop sending; the signal to raise as the block is left, unless an interruption is
        on its way up: one that came while it was left, one deferred from inside an import,
        or one raised and lost too late for the watch to raise it again."""
        with self.lock:
            self.closed = True
            timer = self.timer
        if timer is not None:
            timer.cancel()
            timer.join()
        if carried(sys.exc_info()[1]) is not None:
            return None
        return self.late or self.deferred or self.raised

    def _send_later(self, signum: int, delay: float) -> None:
        with self.lock:
            if self.closed:
                return
            if self.timer is not None:
                self.timer.cancel()
            self.timer = threading.Timer(delay, self._send, (signum,))
            self.timer.daemon = True  # a process that exits meanwhile does not wait for it
            self.timer.start()

    def _send(self, signum: int) -> None:
        with self.lock:
            if self.closed:
                return
            self.own += 1
            os.kill(os.getpid(), signum)


def carried(err: BaseException | None) -> Interrupted | None:
    """The :class:`Interrupted` that ``err`` is, or was raised while handling (a
    :class:`SystemExit` its handler raised, the error of a ``finally`` that failed in turn),
    through its causes and contexts both: ``raise X from Y`` keeps the interruption it
    replaced as X's context."""
    seen, todo = set(), [err]
    while todo:
        err = todo.pop()
        if err is None or id(err) in seen:
            continue
        if isinstance(err, Interrupted):
            return err
        seen.add(id(err))
        todo += [err.__cause__, err.__context__]
    return None


def as_interruption(err: BaseException) -> Interrupted | None:
    """The :class:`Interrupted` to raise for ``err``: ``err`` itself, or, when library code
    turned the signal into another error (a ``finally`` or ``__exit__`` that failed in turn as
    the signal's exception went through it), a new one caused by ``err``, so that an ``except
    Exception`` records it as the interruption it is rather than as a crash; None when ``err``
    carries no interruption."""
    found = carried(err)
    if found is None or found is err:
        return found
    again = Interrupted(found.signum)
    again.__cause__ = err
    return again


def _importing(frame: FrameType | None) -> bool:
    """``frame`` or one of its callers is the import machinery's (``importlib._bootstrap``,
    frozen into the interpreter, or its source file when it is not)."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib") or "importlib/_bootstrap" in name:
            return True
        frame = frame.f_back
    return False


def checkpoint(phase: str) -> None:
    """A named point where a signal can land while runs are trained and recorded: ``group
    training``, ``member job`` (inside Hydra's run_job, before the member's recording),
    ``member tracked`` (its MLflow run open, before capture), ``capture``, ``closing`` (the
    result file written, the MLflow run not yet ended) and ``between members``. Each hook in
    :data:`CHECKPOINT_HOOKS` is called with the phase; a test's hook raises
    :class:`Interrupted` at one of them, which shows, without racing a real signal, that a
    signal landing there still leaves every run recorded."""
    for hook in CHECKPOINT_HOOKS:
        hook(phase)
