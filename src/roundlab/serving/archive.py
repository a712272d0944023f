"""Whether a saved ``.keras`` file is whole, read without Keras: a resumed sweep checks every
model it would reuse this way in its own process, before it starts any TensorFlow one
(:mod:`roundlab.sweep.decide`), and predict says what is wrong instead of Keras's "File not
found"."""

from __future__ import annotations

import zipfile
from pathlib import Path

# What every .keras archive Keras 3 writes holds: without them it cannot load.
KERAS_ARCHIVE_MEMBERS = ("metadata.json", "config.json", "model.weights.h5")


def model_problem(path: Path) -> str | None:
    """Why the ``.keras`` file at ``path`` cannot be loaded (missing, not a zip archive as a
    truncated write leaves it, a member whose checksum fails, a member missing), or None when it
    is whole. Reads the file once."""
    path = Path(path)
    if not path.is_file():
        return f"{path} is missing"
    try:
        with zipfile.ZipFile(path) as archive:
            broken = archive.testzip()
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, EOFError) as err:
        return f"{path} is not a whole .keras archive (truncated or corrupt: {err})"
    if broken is not None:
        return f"{path} is corrupt: its member {broken} fails its checksum"
    missing = [m for m in KERAS_ARCHIVE_MEMBERS if m not in names]
    if missing:
        return f"{path} is not a .keras model: it lacks {missing}"
    return None
