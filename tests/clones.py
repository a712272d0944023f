"""Fresh clones of the committed repository for the end-to-end tests, the environment their
pipeline stages run in, and a command run that fails with its output."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The environment's own executables (python, dvc), as the Makefile arranges.
BIN = Path(sys.executable).parent


def fresh_clone(directory: Path, **extra: str) -> tuple[Path, dict[str, str]]:
    """``directory/roundlab``, a clone of the committed repository, and its environment: the
    clone's src/ first on PYTHONPATH (the installed roundlab is the working copy the tests run
    from, the stages must run the committed code), its own sqlite store under ``directory``,
    the clone as the project root; ``extra`` adds variables."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    clone = directory / "roundlab"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(clone / "src"),
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "MLFLOW_TRACKING_URI": f"sqlite:///{directory / 'mlflow.db'}",
        **extra,
    }
    env.pop("ROUNDLAB_ROOT", None)  # the clone is the project root, found from its dvc.yaml
    return clone, env


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run ``cmd`` to the end; a non-zero exit fails the test with the ends of its output."""
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, (
        f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    )
    return proc
