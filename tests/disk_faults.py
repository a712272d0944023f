"""Write faults on demand, for the tests of what roundlab does when a file cannot be written.

- A full disk: ``os.fsync`` raises ENOSPC for the files whose path holds a given text, as the
  kernel reports a disk that filled while the bytes were written (ext4 defers allocation to the
  flush). In this process with :func:`fill_disk_for`; in a real ``python -m`` process started
  with :func:`full_disk_command`.
"""

from __future__ import annotations

import errno
import os
import sys

import pytest

FULL_DISK_ENV = "ROUNDLAB_TEST_FULL_DISK"

# Run `python -m <module> <args>` with os.fsync failing for paths holding $ROUNDLAB_TEST_FULL_DISK.
_DRIVER = """
import errno, os, runpy, sys
full, real = os.environ["ROUNDLAB_TEST_FULL_DISK"], os.fsync
def fsync(fd):
    if full in os.readlink(f"/proc/self/fd/{fd}"):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    real(fd)
os.fsync = fsync
sys.argv = sys.argv[1:]
runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
"""


def fill_disk_for(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """From now on in this test, flushing a file whose path holds ``name`` fails with ENOSPC."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if name in os.readlink(f"/proc/self/fd/{fd}"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


def full_disk_command(module: str, *args: str) -> list[str]:
    """``python -m module args`` whose flushes fail for the paths holding ``$FULL_DISK_ENV``."""
    return [sys.executable, "-c", _DRIVER, module, *args]
