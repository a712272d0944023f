"""Multiruns end with the sweep that started them.

Each multirun is a child process of ``python -m roundlab.sweep``. A sweep killed outright
(``kill -9``, the out-of-memory killer) runs no code to stop its children, which would train on
as orphans and write into results/ behind the next sweep's back. On Linux each child asks the
kernel for a SIGTERM when the sweep dies (``prctl(PR_SET_PDEATHSIG)``) and then records its
runs KILLED, as for any SIGTERM. The children stay in the sweep's process group, so a signal to
the group (Ctrl-C in a terminal, ``kill -- -<pgid>``) reaches them as before.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
LINUX = sys.platform.startswith("linux")


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
