"""Where the project's files live, so that runs started from any directory agree.

The project root is ``$ROUNDLAB_ROOT`` when set, else the nearest directory at or above the
current one that holds ``dvc.yaml`` or ``pyproject.toml`` (DVC runs stages from the root, tests
and users run from anywhere below it), else the current directory itself: outside a checkout,
data/ and mlflow.db land where the command was started (the tracking store says so
when it creates one there: :func:`roundlab.tracking.store.announce_new_store`).

Every file roundlab writes (result files, models, the sweep's manifest, status files, the report's
files) is written through :func:`atomic_path`: to a temporary name beside it, then renamed into
place, so a crash, a full disk or a kill leaves the old file or the new one whole, never half of
one, and a failure is one :class:`~roundlab.errors.WriteFailed` naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path

from roundlab.errors import WriteFailed

ROOT_MARKERS = ("dvc.yaml", "pyproject.toml")
# The Hydra config tree ships inside the package, so a wheel finds it as the checkout does;
# Hydra reads it as CONF_PACKAGE (``pkg://roundlab.conf``), the DVC pipeline as a directory.
CONF_DIR = Path(__file__).resolve().parent / "conf"
CONF_PACKAGE = "pkg://roundlab.conf"
# The sweep's plan and timings, written by the sweep stage beside the result files.
SWEEP_MANIFEST = "_sweep.yaml"
# What a write under way is called: ``.<name>.tmp-<pid>-<random><suffix>``, hidden, and never
# matching a result file's ``seed=*.json``; the suffix is kept because Keras and matplotlib choose
# the format from it. What a killed process left is removed by the sweep's housekeeping.
TEMPORARY_GLOB = ".*.tmp-*"


def project_root(start: Path | None = None) -> Path:
    """The root directory that data/, results/, reports/ and mlflow.db hang from."""
    env = os.environ.get("ROUNDLAB_ROOT")
    if env:
        return Path(env).resolve()
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if any((candidate / marker).is_file() for marker in ROOT_MARKERS):
            return candidate
    return here


def data_dir() -> Path:
    return project_root() / "data"


def results_dir() -> Path:
    return project_root() / "results"


def reports_dir() -> Path:
    return project_root() / "reports"


def default_tracking_uri() -> str:
    """``$MLFLOW_TRACKING_URI`` if set, else an absolute sqlite URI at the project root."""
    return os.environ.get("MLFLOW_TRACKING_URI") or f"sqlite:///{project_root() / 'mlflow.db'}"


@contextlib.contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary name beside ``path`` for the block to write. When the block succeeds the file
    is flushed to disk and renamed to ``path`` (a rename within a directory is atomic: readers
    see the old file or the new one); when it raises, the temporary file is removed and
    ``path`` is left as it was. An OSError on the way (ENOSPC, EACCES, EROFS), in the block or
    in the rename, becomes one :class:`WriteFailed` naming ``path``."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}{path.suffix}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        yield tmp
        flush(tmp)
        os.replace(tmp, path)
    except WriteFailed:  # a nested write names its own path
        raise
    except OSError as err:
        raise write_failed(path, err) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def atomic_write(path: Path, content: str | bytes) -> Path:
    """Write ``content`` (text as UTF-8) to ``path`` through :func:`atomic_path`."""
    data = content.encode() if isinstance(content, str) else content
    with atomic_path(path) as tmp, open(tmp, "xb") as handle:
        handle.write(data)
    return Path(path)


def check_writable(directory: Path, name: str) -> Path:
    """Write (and remove) a file in ``directory``, or, when it does not exist yet, in the
    nearest directory above it that does (where it would be created), so that a directory that
    cannot take files stops a command before it trains, not after; nothing is left behind.
    ``name`` is the setting that chose it (``results_dir``, ``--results``), for the message."""
    directory = Path(directory).absolute()
    existing = next(p for p in (directory, *directory.parents) if p.exists())
    try:
        if not existing.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(existing))
        handle, probe = tempfile.mkstemp(prefix=".write-check-", dir=existing)
        os.close(handle)
        os.unlink(probe)
    except OSError as err:
        raise WriteFailed(
            f"{name} must be a directory roundlab can write to. "
            f"Received: {name}={directory} ({_cause(err)})",
            err.errno,
        ) from None
    return directory


def write_failed(path: Path, err: OSError) -> WriteFailed:
    """The one-line error for ``path`` that could not be written because of ``err``."""
    return WriteFailed(
        f"{path} must be written whole; nothing partial was left (free space or fix the "
        f"permissions, then run again). Received: {_cause(err)}",
        err.errno,
    )


def flush(path: Path) -> None:
    """Force the file's bytes to disk (before the rename, so that a full disk fails while the
    old file is still in place, rather than after it)."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _cause(err: OSError) -> str:
    code = errno.errorcode.get(err.errno, str(err.errno)) if err.errno else type(err).__name__
    return f"{code}: {err.strerror or err}"
