"""Real `python -m roundlab.train` processes for the reliability tests: started with their own
sqlite store under tmp_path, their output in files so a test can wait for a marker in it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from roundlab import results


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "MLFLOW_TRACKING_URI": f"sqlite:///{tmp_path / 'mlflow.db'}",
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def start(tmp_path: Path, args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
    """``python -m roundlab.train <args>`` writing results under tmp_path/results, its stdout
    and stderr to tmp_path/out.txt and tmp_path/err.txt."""
    cmd = [
        sys.executable,
        "-m",
        "roundlab.train",
        *args,
        f"results_dir={tmp_path / 'results'}",
        f"hydra.run.dir={tmp_path / 'run'}",
    ]
    return subprocess.Popen(
        cmd,
        cwd=tmp_path,
        env=env or environment(tmp_path),
        stdout=open(tmp_path / "out.txt", "w"),  # noqa: SIM115  (closed with the process)
        stderr=open(tmp_path / "err.txt", "w"),  # noqa: SIM115
    )


def run(tmp_path: Path, args: list[str], env: dict[str, str] | None = None, timeout=300):
    """Run to the end: ``(exit code, stdout, stderr, seconds)``."""
    started = time.monotonic()
    proc = start(tmp_path, args, env)
    code = proc.wait(timeout=timeout)
    return code, output(tmp_path, "out"), output(tmp_path, "err"), time.monotonic() - started


def output(tmp_path: Path, name: str) -> str:
    return (tmp_path / f"{name}.txt").read_text()


def wait_for(tmp_path: Path, proc: subprocess.Popen, marker: str, timeout: float = 120) -> None:
    """Until ``marker`` is in the process's stdout or stderr; fails if it exits first."""
    deadline = time.monotonic() + timeout
    while marker not in output(tmp_path, "out") + output(tmp_path, "err"):
        assert proc.poll() is None, f"exited {proc.returncode}: {output(tmp_path, 'err')[-2000:]}"
        assert time.monotonic() < deadline, f"no {marker!r} after {timeout} s"
        time.sleep(0.2)


def result_files(tmp_path: Path) -> list[results.RunResult]:
    return [results.read(p) for p in sorted((tmp_path / "results").rglob("seed=*.json"))]
