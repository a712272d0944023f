"""What a long job shows while it runs: a sweep's runs done out of planned, failures so far and
an estimated time to go (a single run's epochs: :class:`roundlab.engine.epoch_log.EpochLog`).

:class:`Progress` writes one line per update (``progress: 12/40 runs, 1 failed, 2m05s elapsed,
ETA 4m10s``), fit for logs; on a terminal it redraws one line in place instead, with a bar
(``\\r``: no dependency for a single line). ETA = elapsed / done * (total - done), the mean
time per finished run so far, so it settles as runs finish.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

BAR_WIDTH = 24
# Set by roundlab.sweep for its multiruns: it shows the progress of its whole plan itself.
QUIET_ENV = "ROUNDLAB_SWEEP_PROGRESS"


def duration(seconds: float) -> str:
    """``75.2`` -> ``1m15s``; ``3725`` -> ``1h02m``; under a minute ``42s``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def summary(done: int, total: int, failed: int, elapsed: float) -> str:
    """``12/40 runs, 1 failed, 2m05s elapsed, ETA 4m10s`` (no ETA before the first run)."""
    eta = f"ETA {duration(elapsed / done * (total - done))}" if done else "ETA unknown"
    return f"{done}/{total} runs, {failed} failed, {duration(elapsed)} elapsed, {eta}"


class Progress:
    """Runs done out of ``total``: :meth:`update` with the counts so far prints when they
    changed. ``stream`` (default stdout) decides the form: a bar redrawn in place on a
    terminal, one line per update otherwise."""

    def __init__(self, total: int, label: str = "progress", stream: TextIO | None = None):
        self.total, self.label = total, label
        self.stream = stream or sys.stdout
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.last: tuple[int, int] | None = None

    def update(self, done: int, failed: int) -> None:
        if (done, failed) == self.last:
            return
        self.last = (done, failed)
        text = summary(done, self.total, failed, time.monotonic() - self.started)
        if self.tty:
            filled = BAR_WIDTH * done // max(self.total, 1)
            bar = "#" * filled + "." * (BAR_WIDTH - filled)
            end = "\n" if done >= self.total else ""
            self.stream.write(f"\r\033[K{self.label} [{bar}] {text}{end}")
        else:
            self.stream.write(f"{self.label}: {text}\n")
        self.stream.flush()

    def close(self) -> None:
        """End a bar left mid-line (a sweep stopped before its last run)."""
        if self.tty and self.last is not None and self.last[0] < self.total:
            self.stream.write("\n")
            self.stream.flush()
