"""What a long job shows while it runs: a sweep's runs done out of planned, failures so far, the
expected ones apart, and an estimated time to go (a single run's epochs:
:class:`roundlab.engine.epoch_log.EpochLog`).

A failure is expected when :func:`roundlab.results.expected_failure` says so (the hard_round
control, which has no gradient and exists to fail); :func:`tally` counts jobs from their status
records with that rule and :func:`result_tally` counts result files with it, so the bar, the
per-multirun lines, the sweep's last line and ``--fail-on-failed-jobs`` agree.

:class:`Progress` draws one pinned bar (tqdm) when its stream (stderr) is a terminal, ``sweep
|#####     | 12/40 runs, 1 failed, 4 expected failures (hard_round control), 2m05s elapsed, ETA
4m10s``; anywhere else (DVC's log, CI, a pipe) it writes the same text as one plain line per
change, without control codes. Lines printed beside the bar go through :meth:`Progress.write`,
which clears the bar, prints and redraws it, so the two never run into one another. ETA =
elapsed / done * (total - done), the mean time per finished run so far, so it settles as runs
finish.
"""

from __future__ import annotations

import functools
import sys
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from tqdm import tqdm

from roundlab import results
from roundlab.run.status import job_statuses
from roundlab.sweep import result_reads

# Set by roundlab.sweep for its multiruns: it shows the progress of its whole plan itself.
QUIET_ENV = "ROUNDLAB_SWEEP_PROGRESS"
TAIL_LINES = 20  # of the log of a multirun that exited with an error, printed
EXPECTED = f"expected failures ({', '.join(results.NEGATIVE_CONTROLS)} control)"


@dataclass(frozen=True)
class Tally:
    """Runs that ended: ``done`` in all, ``failed`` of them by a fault and ``expected`` failures
    (:func:`roundlab.results.expected_failure`); the others finished."""

    done: int = 0
    failed: int = 0
    expected: int = 0

    @property
    def finished(self) -> int:
        return self.done - self.failed - self.expected

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            self.done + other.done, self.failed + other.failed, self.expected + other.expected
        )

    def failures(self) -> str:
        """``1 failed``, with ``, 4 expected failures (hard_round control)`` when there are."""
        return f"{self.failed} failed" + (f", {self.expected} {EXPECTED}" if self.expected else "")


def tally(records: Iterable[dict[str, Any]]) -> Tally:
    """Count status records (:mod:`roundlab.run.status`): a FAILED one is an expected failure
    when its result file is."""
    done = failed = expected = 0
    for record in records:
        done += 1
        if record["status"] != results.FINISHED:
            if _expected(record.get("result_file")):
                expected += 1
            else:
                failed += 1
    return Tally(done, failed, expected)


def result_tally(paths: Iterable[Path]) -> Tally:
    """Count result files; an absent or unreadable one is not counted (not ``done``)."""
    found = [_read(Path(p)) for p in paths]
    found = [r for r in found if r is not None]
    expected = sum(results.expected_failure(r) for r in found)
    return Tally(len(found), sum(not r.ok for r in found) - expected, expected)


def _expected(path: str | None) -> bool:
    try:  # the modification time keys the cache: a file written again is read again
        return bool(path) and _expected_file(str(path), Path(path).stat().st_mtime_ns)
    except OSError:
        return False


@functools.lru_cache(maxsize=4096)
def _expected_file(path: str, mtime_ns: int) -> bool:
    result = _read(Path(path))
    return result is not None and results.expected_failure(result)


def _read(path: Path) -> results.RunResult | None:
    try:
        return result_reads.read(path)
    except (ValueError, OSError):  # absent, unreadable or edited: not a run that ended
        return None


def duration(seconds: float) -> str:
    """``75.2`` -> ``1m15s``; ``3725`` -> ``1h02m``; under a minute ``42s``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def summary(done: int, total: int, failed: int, elapsed: float, expected: int = 0) -> str:
    """``12/40 runs, 1 failed, 2m05s elapsed, ETA 4m10s`` (no ETA before the first run), with
    the expected failures after ``failed`` when there are."""
    eta = f"ETA {duration(elapsed / done * (total - done))}" if done else "ETA unknown"
    failures = Tally(done, failed, expected).failures()
    return f"{done}/{total} runs, {failures}, {duration(elapsed)} elapsed, {eta}"


class Progress:
    """Runs done out of ``total``: :meth:`update` with the counts so far. ``stream`` (default
    stderr) decides the form, unless ``bar`` does: a tqdm bar redrawn in place on a terminal,
    else one line per change of the counts."""

    def __init__(
        self,
        total: int,
        label: str = "progress",
        stream: TextIO | None = None,
        bar: bool | None = None,
    ):
        self.total, self.label = total, label
        self.stream = stream or sys.stderr
        if bar is None:
            bar = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.last: tuple[int, int, int] | None = None
        self.bar = None
        if bar:
            start = self._bar_format(summary(0, total, 0, 0.0))
            self.bar = tqdm(total=total, file=self.stream, dynamic_ncols=True, bar_format=start)

    def update(self, done: int, failed: int, expected: int = 0) -> None:
        """Show the counts; a plain stream gets a line only when they changed, a bar is redrawn
        (its elapsed time moves on)."""
        counts = (done, failed, expected)
        if self.bar is None and counts == self.last:
            return
        self.last = counts
        text = summary(done, self.total, failed, time.monotonic() - self.started, expected)
        if self.bar is not None:
            self.bar.bar_format = self._bar_format(text)
            self.bar.total, self.bar.n = self.total, done
            self.bar.refresh()
        else:
            self.stream.write(f"{self.label}: {text}\n")
            self.stream.flush()

    def _bar_format(self, text: str) -> str:
        escaped = text.replace("{", "{{").replace("}", "}}")
        return f"{self.label} |{{bar}}| {escaped}"

    def grow(self, runs: int) -> None:
        """``runs`` more to train (a round of rate extensions), or fewer when negative (runs
        reused)."""
        self.total += runs

    def write(self, line: str, file: TextIO | None = None) -> None:
        """Print ``line`` to ``file`` (default stdout) above the bar."""
        file = file or sys.stdout
        if self.bar is not None:
            self.bar.write(line, file=file)
        else:
            print(line, file=file, flush=True)

    def close(self) -> None:
        """Leave the bar as it last was, on a line of its own."""
        if self.bar is not None:
            self.bar.close()


def multirun_ended(progress: Progress, entry: dict[str, Any], log_file: Path) -> None:
    """The line of a multirun that ended (``entry``: its sweep log entry), ``multirun <family>:
    8 runs, 8 finished, 0 failed, 0 reused, in 12 s (log: …)``, a worker's name followed by its
    families (``multirun worker-1 (approaches, activations): …``), counted from the status
    records in its sweep directory (``log_file``'s); when it exited with an error, the last
    lines of its log follow on stderr."""
    counts = tally(job_statuses(log_file.parent))
    shown, code = _shown(log_file), entry["exit_code"]
    of = f" ({', '.join(entry['families'])})" if entry.get("families") else ""
    progress.write(
        f"multirun {entry['family']}{of}: {entry['runs']} runs, {counts.finished} finished, "
        f"{counts.failures()}, {entry['reused']} reused, in {entry['wall_time_s']:.0f} s"
        + (f", exit code {code}" if code else "")
        + f" (log: {shown})"
    )
    if code:
        with open(log_file, errors="replace") as f:
            tail = "".join(deque(f, maxlen=TAIL_LINES)).rstrip("\n")
        progress.write(f"multirun {entry['family']}: last lines of {shown}:\n{tail}", sys.stderr)


def _shown(path: Path) -> str:
    """``path`` relative to the working directory when it is under it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def failed_jobs_exit(results_dir: Path, planned: list[str]) -> int:
    """``--fail-on-failed-jobs``: 1 (with one line) when a planned run left no result file, a
    file that cannot be read, or did not finish and is no expected failure
    (:func:`roundlab.results.expected_failure`), else 0."""
    each = {p: result_tally([Path(results_dir) / p]) for p in planned}
    bad = [p for p, t in each.items() if t.finished + t.expected == 0]
    expected = sum(t.expected for t in each.values())
    if not bad:
        return 0
    print(
        f"sweep: {len(bad)} of {len(planned)} runs did not finish (--fail-on-failed-jobs; "
        f"{expected} {EXPECTED} not counted), e.g. {Path(results_dir) / bad[0]}",
        file=sys.stderr,
    )
    return 1
