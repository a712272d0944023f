"""SIGINT and SIGTERM as an exception in the main thread, so a run can record itself KILLED.

Python turns SIGINT into ``KeyboardInterrupt`` but leaves SIGTERM (what SLURM and other
schedulers send) to kill the process outright, with no result file and the MLflow run left
RUNNING. Inside :func:`interruptible` both raise :class:`Interrupted`, a ``KeyboardInterrupt``
subclass, so no ``except Exception`` on the way (Keras, Hydra's ``run_job``) swallows it, and the
bookkeeping in :meth:`roundlab.run.recording.Recording.capture` runs before the process exits with
``128 + signal number`` (130 for SIGINT, 143 for SIGTERM), the shell's convention.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Callable, Iterator

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGINT, signal.SIGTERM)
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
    """Raise :class:`Interrupted` on the first SIGINT or SIGTERM inside the block; a second
    signal while that interruption is being recorded is logged and ignored, so the result file
    and the MLflow run are finished rather than cut off halfway. The previous handlers come
    back on exit. Outside the main thread (where Python cannot install handlers) a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised: list[int] = []

    def handler(signum: int, frame: object) -> None:
        if raised:
            log.warning("%s ignored: still recording the interruption", signal.strsignal(signum))
            return
        raised.append(signum)
        raise Interrupted(signum)

    previous = {s: signal.signal(s, handler) for s in SIGNALS}
    try:
        yield
    finally:
        for s, old in previous.items():
            signal.signal(s, old)


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
