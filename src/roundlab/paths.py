"""Where the project's files live, so that runs started from any directory agree.

The project root is ``$ROUNDLAB_ROOT`` when set, else the nearest directory above the current
one that holds ``dvc.yaml`` (Hydra changes the working directory of a job, DVC runs stages from
the root, tests run from anywhere), else the current directory.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT_MARKERS = ("dvc.yaml", "pyproject.toml")
# The Hydra config tree of the source checkout (roundlab is installed editable from it).
CONF_DIR = Path(__file__).resolve().parents[2] / "conf"
# The sweep's plan and timings, written by the sweep stage beside the result files.
SWEEP_MANIFEST = "_sweep.yaml"


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
