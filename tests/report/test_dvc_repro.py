"""End to end: a fresh clone of the committed repository, `dvc repro` on the tiny profile.

The profile is chosen the way a DVC user would: `dvc exp run -S profile=tiny` sets it in the
clone's params.yaml and runs the pipeline, so the repository under test is never touched.
The clone's own src/ goes first on PYTHONPATH: the installed roundlab is the working copy the
tests run from, and the pipeline must run the committed code.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from report_checks import check_report

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, (
        f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    )
    return proc


@pytest.mark.slow
def test_dvc_repro_on_the_tiny_profile_builds_the_report_and_a_second_repro_does_nothing(
    tmp_path,
):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    clone = tmp_path / "roundlab"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(clone / "src"),
        "TF_CPP_MIN_LOG_LEVEL": "2",
        "MLFLOW_TRACKING_URI": f"sqlite:///{tmp_path / 'mlflow.db'}",
    }
    env.pop("ROUNDLAB_ROOT", None)  # the clone is the project root, found from its dvc.yaml
    dvc = str(BIN / "dvc")

    _run([dvc, "exp", "run", "-S", "profile=tiny"], clone, env)

    reports = clone / "reports"
    check_report(reports)
    metrics = {p.stem: json.loads(p.read_text()) for p in (reports / "metrics").glob("*.json")}
    assert set(metrics) == {"baseline", "classification", "regression", "rounding-sigmoid_round"}
    assert all("count" in m for m in metrics.values())
    md = (reports / "report.md").read_text()
    assert "profile `tiny`" in md
    assert "hard_round" in md.split("## 6. Failed runs")[1]  # the negative control failed
    assert list((reports / "plots").glob("sweep-count-sigmoid_round.csv"))

    start = time.perf_counter()
    second = _run([dvc, "repro"], clone, env)
    assert "Data and pipelines are up to date." in second.stdout
    assert "Running stage" not in second.stdout
    assert time.perf_counter() - start < 60
    shown = _run([dvc, "metrics", "show"], clone, env).stdout
    assert "reports/headline.json" in shown and "reports/metrics/" not in shown
    every = _run([dvc, "metrics", "show", "reports/metrics"], clone, env).stdout
    assert "reports/metrics/rounding-sigmoid_round.json" in every
