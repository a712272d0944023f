"""The study directory: a small roundlab project of its own.

``<out>/params.yaml`` holds the one dataset entry (by value) and the budget as the active
profile, ``<out>/profiles.yaml`` that budget in profiles.yaml's format: the same two files the
DVC pipeline reads, so ``ROUNDLAB_ROOT=<out> python -m roundlab.sweep`` and
``python -m roundlab.report`` rerun any step by hand. data/, results/, multirun/, reports/ and
the MLflow store (mlflow.db) land under ``<out>`` because the study sets ``ROUNDLAB_ROOT`` to
it (:func:`roundlab.paths.project_root`).

Without ``--out`` a study goes to ``studies/<name>/`` under the roundlab checkout it runs in
(its project root), else under the current directory: a user's own project that happens to
hold a ``pyproject.toml`` gets no files written beside it.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import yaml

from roundlab import paths
from roundlab.data.entries import Entry
from roundlab.errors import ConfigError
from roundlab.sweep.profile import PROFILES_FILE

STUDIES_DIR = "studies"
PARAMS_FILE = "params.yaml"
RESULTS_DIR = "results"
PARAMS_HEADER = (
    "# Written by `roundlab study`: the study's one dataset (by value) and its budget\n"
    "# (profiles.yaml beside this file). roundlab's docs/params.md explains every key.\n"
)


def is_roundlab_checkout(root: Path) -> bool:
    """Whether ``root`` is roundlab's own source tree (its pyproject.toml names the project)."""
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text()).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return project.get("name") == "roundlab"


def default_out(name: str, cwd: Path | None = None) -> Path:
    """``studies/<name>`` under ``$ROUNDLAB_ROOT`` or the roundlab checkout around ``cwd``, else
    under ``cwd`` itself."""
    cwd = (cwd or Path.cwd()).absolute()
    root = paths.project_root(cwd)
    base = root if os.environ.get("ROUNDLAB_ROOT") or is_roundlab_checkout(root) else cwd
    return base / STUDIES_DIR / name


def check_fresh(out: Path, resume: bool, params: dict[str, Any]) -> None:
    """Refuse (ConfigError) an ``out`` that is not a directory, or that already holds result
    files unless ``resume``: a rerun would otherwise mix into, or prune, a study the user may
    want to keep. ``resume`` continues only the same study: the same dataset entry and budget
    (``params``, as params.yaml would hold them), in a directory that holds one."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out must be a directory. Received: --out={out} (a file)")
    results = out / RESULTS_DIR
    if not resume and results.is_dir() and any(results.rglob("*.json")):
        raise ConfigError(
            f"--out must be a new study directory, or pass --resume to continue the study in "
            f"it (or choose another --out). Received: --out={out} (it holds results)"
        )
    if not resume:
        return
    stored = out / PARAMS_FILE
    if not stored.is_file():
        raise ConfigError(
            f"--resume needs a study to continue in --out. Received: --out={out} (no "
            f"{PARAMS_FILE}: run without --resume to start one)"
        )
    before = yaml.safe_load(stored.read_text()) or {}
    if before != params:
        raise ConfigError(
            f"--resume continues the same study: the same data, options and --budget. "
            f"Received: {params} where --out={out} holds {before}"
        )


def write(out: Path, entry_keys: dict[str, Any], entry: Entry, budget: str, raw: dict) -> Path:
    """Write ``<out>/params.yaml`` (the dataset entry, ``profile: <budget>``) and
    ``<out>/profiles.yaml`` (the budget); returns the params file."""
    params = study_params(entry.name, entry_keys, budget)
    paths.atomic_write(out / PROFILES_FILE, yaml.safe_dump({budget: raw}, sort_keys=False))
    return paths.atomic_write(
        out / PARAMS_FILE, PARAMS_HEADER + yaml.safe_dump(params, sort_keys=False)
    )


def study_params(name: str, entry_keys: dict[str, Any], budget: str) -> dict[str, Any]:
    """What ``<out>/params.yaml`` holds: the budget's name as the profile, the one entry."""
    return {"profile": budget, "datasets": {name: entry_keys}}
