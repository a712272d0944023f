"""The errors roundlab stops with in one line instead of a traceback.

They live here, below every other module, because each is raised in one layer and caught in
another: a bad config value is found by the approaches, the engine's memory estimate and the
run's validation, and turned into ``config error: ...`` by the entry points.
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A config value that composes but cannot be trained with."""


class TrackingUnreachable(RuntimeError):
    """The tracking server does not answer and ``tracking.on_unreachable`` says to fail."""


class WriteFailed(OSError):
    """A file roundlab writes could not be written whole (no space, no permission, a read-only
    file system). Raised by :func:`roundlab.paths.atomic_path`, which leaves no partial file;
    ``errno`` is the cause's (``errno.ENOSPC``, ``errno.EACCES``)."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno
