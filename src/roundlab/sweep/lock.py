"""One sweep at a time per results directory, and per sweep directory.

Two sweeps into one results/ each decide what to reuse before the other has written anything,
so both train every run, prune each other's files and count reuse wrongly. A sweep therefore
holds an exclusive ``flock`` on :data:`LOCK_FILE` in results/ while it runs, and a second sweep
refuses at once, in one line naming the holder, rather than waiting: a sweep runs for hours,
a waiting one looks hung, and once the first had finished the second would only reuse what the
first wrote. (DVC likewise refuses a second ``dvc repro`` in one repository.)

The sweep directory is held the same way: it holds the workers' task queue
(:mod:`roundlab.sweep.queue`), which a second sweep would clear and fill with its own tasks.

The lock file is not a result file: pruning, the manifest and the report read only
``seed=*.json`` files and ``_sweep.yaml``. It is removed when the sweep ends, so a resumed sweep
still leaves results/ byte-identical; a sweep killed outright leaves it behind, unlocked (the
kernel drops the lock with the process), and the next sweep takes it over.
"""

from __future__ import annotations

import contextlib
import datetime
import fcntl
import os
import socket
from collections.abc import Iterator
from pathlib import Path

LOCK_FILE = ".sweep.lock"


class ResultsDirBusy(RuntimeError):
    """Another sweep holds the lock of the results directory (or of the sweep directory)."""


@contextlib.contextmanager
def hold(directory: Path, option: str = "--results") -> Iterator[Path]:
    """Hold the lock of ``directory`` (created if absent; given by the sweep's ``option``) for
    the block; raises :class:`ResultsDirBusy` naming the holder when another process holds
    it."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / LOCK_FILE
    fd = _acquire(path, option)
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{_holder()}\n".encode())
        yield path
    finally:
        # Removed while still locked: a sweep that opened the old file finds it gone and opens
        # the path again (see _acquire).
        path.unlink(missing_ok=True)
        os.close(fd)


def _acquire(path: Path, option: str) -> int:
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = _read(path) or "a process that has not written its name yet"
            kind = "results directory" if option == "--results" else "sweep directory"
            raise ResultsDirBusy(
                f"a {kind} takes one sweep at a time: wait for the other sweep or "
                f"give this one another {option}. Received: {path} held by {holder}"
            ) from None
        if _same_file(fd, path):
            return fd
        os.close(fd)  # the holder removed the file between our open and our lock


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _holder() -> str:
    started = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    return f"pid {os.getpid()} on {socket.gethostname()} since {started}"


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""
