"""Write faults on demand, for the tests of what roundlab does when a file cannot be written.

- A full disk: ``os.fsync`` raises ENOSPC for the files whose path holds a given text, as the
  kernel reports a disk that filled while the bytes were written (ext4 defers allocation to the
  flush). In this process with :func:`fill_disk_for`; in a real ``python -m`` process started
  with :func:`full_disk_command`.
- A directory that cannot be written to: mode 0555 (:func:`read_only_dir`). Root writes through
  that mode, so a test process running as root starts its command through ``setpriv`` without
  ``CAP_DAC_OVERRIDE``: the kernel then refuses with EACCES as it would for any user.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FULL_DISK_ENV = "ROUNDLAB_TEST_FULL_DISK"
WITHOUT_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]

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


def read_only_dir(path: Path) -> list[str]:
    """Make ``path`` a directory of mode 0555 and return the prefix under which a command
    cannot write to it: none for an ordinary user, ``setpriv`` without CAP_DAC_OVERRIDE for
    root. Skips when root cannot drop the capability here (no setpriv, no CAP_SETPCAP)."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o555)
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root writes through mode 0555, and setpriv is not installed to drop that")
    probe = path / "probe"
    tried = subprocess.run(
        [*WITHOUT_OVERRIDE, sys.executable, "-c", f"open({str(probe)!r}, 'w')"],
        capture_output=True,
        text=True,
    )
    if tried.returncode == 0 or "PermissionError" not in tried.stderr:
        probe.unlink(missing_ok=True)
        pytest.skip(f"root cannot give up CAP_DAC_OVERRIDE here: {tried.stderr.strip()[-200:]}")
    return list(WITHOUT_OVERRIDE)
