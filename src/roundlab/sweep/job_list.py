"""A multirun's ``sweep.jobs=<file>``: a YAML list of jobs, each a list of overrides.

Read in one place for the two that need it, the sweeper (which runs the jobs) and the multirun's
progress line (which counts them), so a file that is not such a list is refused in one line
naming the key, the file and the entry, by the sweeper, and counted by neither.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from roundlab.errors import ConfigError

KEY = "sweep.jobs"


def read(file: Path) -> list[list[str]]:
    """The jobs ``file`` lists, each a list of override strings (``key=value``); an empty file
    lists none. Raises ConfigError naming the file for one that is missing, unreadable, not
    YAML or not a list of such lists."""
    try:
        listed = yaml.safe_load(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as err:
        reason = " ".join(str(err).split())
        raise ConfigError(
            f"{KEY} must name a readable YAML file listing the jobs ({reason}). "
            f"Received: {KEY}={file}"
        ) from None
    if listed is None:
        return []
    if not isinstance(listed, list):
        raise _not_a_list(file, f"it holds a {type(listed).__name__}")
    for number, job in enumerate(listed, start=1):
        if not isinstance(job, list):
            raise _not_a_list(file, f"job {number} is {job!r}, not a list")
        for entry in job:
            if not _override(entry):
                raise _not_a_list(file, f"job {number} holds {entry!r}, not an override")
    return listed


def _override(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _not_a_list(file: Path, problem: str) -> ConfigError:
    return ConfigError(
        f"{KEY} must list the jobs, each a list of overrides such as [seed=0, lr=0.01]: "
        f"{problem}. Received: {KEY}={file}"
    )
