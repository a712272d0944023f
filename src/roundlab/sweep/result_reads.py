"""Each result file read once per process: a sweep reads every planned file to decide whether
to reuse it (:mod:`roundlab.sweep.resume`), again to plan the rate extensions
(:mod:`roundlab.sweep.extend`) and again to count what it ended with
(:mod:`roundlab.sweep.progress`); reading and checking a file's digest is most of that cost.

A read is kept with the file's ``(st_mtime_ns, st_size, st_ino)`` taken before it was read, and
given back while the file still has them: a file written again (an atomic write renames a new
file into place, so its inode changes) is read again, and one replaced between that ``stat`` and
its read is read again the next time. Only good reads are kept: an unreadable file raises as
:func:`roundlab.results.read` does, every time. The results are shared objects: a caller does
not change them.

A kept result has no ``history``: its per-epoch lists are most of a result's memory (40 MB for
the default profile's files; the ``full`` profile's thousands of runs of up to 1000 epochs would
hold gigabytes for the whole sweep), and nothing that decides reuse, plans rates or counts
runs reads them; :func:`roundlab.results.read` gives the whole file.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from roundlab import results

_READ: dict[str, tuple[tuple[int, int, int], results.RunResult]] = {}


def read(path: Path) -> results.RunResult:
    """:func:`roundlab.results.read` of ``path`` without its history, from memory when the
    file is unchanged."""
    name = os.path.abspath(path)
    info = os.stat(name)
    stamp = (info.st_mtime_ns, info.st_size, info.st_ino)
    found = _READ.get(name)
    if found is not None and found[0] == stamp:
        return found[1]
    result = dataclasses.replace(results.read(Path(name)), history={})
    _READ[name] = (stamp, result)
    return result
