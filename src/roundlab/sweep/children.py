"""Multiruns end with the sweep that started them.

Each multirun is a child process of ``python -m roundlab.sweep``, ``processes`` of them at once
(:func:`run_multiruns`). A sweep killed outright
(``kill -9``, the out-of-memory killer) runs no code to stop its children, which would train on
as orphans and write into results/ behind the next sweep's back. On Linux each child asks the
kernel for a SIGTERM when the sweep dies (``prctl(PR_SET_PDEATHSIG)``) and then records its
runs KILLED, as for any SIGTERM. The children stay in the sweep's process group, so a signal to
the group (Ctrl-C in a terminal, ``kill -- -<pgid>``) reaches them as before.
"""

from __future__ import annotations

import ctypes
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roundlab import interruption
from roundlab.sweep.housekeeping import reused_jobs
from roundlab.sweep.plan import Multirun
from roundlab.sweep.profile import Profile

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
LINUX = sys.platform.startswith("linux")
PROGRESS_EVERY_S = 5.0  # how often the sweep counts its running multiruns' finished jobs
POLL_S = 0.2  # how often it looks for a multirun that ended
# How long an interrupted multirun gets to record its runs KILLED (a stacked group's members
# take well under a second each) before it is killed outright.
STOP_WAIT_S = 60.0


def popen_options() -> dict[str, Any]:
    """Keyword arguments of :class:`subprocess.Popen` for a multirun of this sweep."""
    return {"preexec_fn": _die_with(os.getpid())} if LINUX else {}


def _die_with(parent: int) -> Callable[[], None]:
    # libc is loaded here, in the sweep: the function runs in the forked child before exec,
    # where little more than a system call is safe.
    libc = ctypes.CDLL(None, use_errno=True)

    def preexec() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # the sweep died before prctl: nothing would signal us
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


@dataclass
class Launched:
    """A multirun under way: its process, its command, its Hydra sweep directory and when it
    started."""

    multirun: Multirun
    command: list[str]
    process: subprocess.Popen
    sweep_dir: Path
    started: float = field(default_factory=time.perf_counter)


def run_multiruns(
    multiruns: list[Multirun],
    profile: Profile,
    start: Callable[[Multirun], Launched],
    report: Callable[[list[Multirun]], None],
    ended: Callable[[Launched, dict[str, Any]], None],
    tick: Callable[[], list[Multirun]] = list,
) -> list[dict[str, Any]]:
    """Run the multiruns in order, at most ``profile.processes`` at once, and return their log
    entries in that order, calling ``report`` with the multiruns started so far every few
    seconds, ``ended`` with each multirun and its entry as it ends and ``tick`` every poll,
    which returns more multiruns to run (the sweep queues its next round there, and adds
    workers when a round has more tasks than it has workers). SIGINT or SIGTERM to the sweep is
    passed on to every running multirun (a scheduler signals only the sweep's process), so
    their runs are recorded KILLED before the sweep stops with Interrupted; any other error of
    the sweep's own (a full disk between rounds) stops them with SIGTERM before it is raised."""
    order, pending, running, entries = list(multiruns), list(multiruns), [], {}
    last_report = time.perf_counter()
    with interruption.interruptible():
        try:
            while pending or running:
                while pending and len(running) < profile.processes:
                    running.append(start(pending.pop(0)))
                for launched in [r for r in running if r.process.poll() is not None]:
                    running.remove(launched)
                    entries[launched.multirun.family] = log_entry(launched)
                    ended(launched, entries[launched.multirun.family])
                more = tick()
                order, pending = order + more, pending + more
                if time.perf_counter() - last_report >= PROGRESS_EVERY_S:
                    report(order[: len(order) - len(pending)])
                    last_report = time.perf_counter()
                time.sleep(POLL_S)
        except interruption.Interrupted as err:
            _stop(running, err.signum)
            raise
        except BaseException:
            _stop(running, signal.SIGTERM)
            raise
    report(order)
    return [entries[m.family] for m in order]


def _stop(running: list[Launched], signum: int) -> None:
    """Pass ``signum`` on and wait for each multirun to record its runs KILLED and exit; one
    still running after :data:`STOP_WAIT_S` is killed outright (its unclosed MLflow runs are
    then ended by :mod:`roundlab.tracking.stale_runs`), so a stuck worker never holds the sweep."""
    for launched in running:
        launched.process.send_signal(signum)
    deadline = time.monotonic() + STOP_WAIT_S
    for launched in running:
        try:
            launched.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            launched.process.kill()
            launched.process.wait()


def log_entry(launched: Launched) -> dict[str, Any]:
    return {
        "family": launched.multirun.family,
        "runs": len(launched.multirun.runs),
        "reused": reused_jobs(launched.sweep_dir),
        "exit_code": launched.process.returncode,
        "wall_time_s": round(time.perf_counter() - launched.started, 1),
        "command": shlex.join(["python", *launched.command[1:]]),
    }
