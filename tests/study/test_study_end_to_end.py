"""`roundlab study` end to end on a small CSV with the quick budget: the report lands in
<out>/reports/, the terminal shows the recommendation per metric and the report's path, every
run is in the study's MLflow store, a rare extreme label stays in training, and a rerun with
--resume trains nothing again."""

from __future__ import annotations

import contextlib
import io
import re
import sqlite3

import numpy as np
import pytest

from roundlab import data
from roundlab import results as results_io
from roundlab.study.cli import main

pytestmark = pytest.mark.slow

ROWS = 180
RARE = 3  # rows of label 0, the low extreme of a 0..4 label


def _csv(path):
    """x1 decides the label (1..4, plus noise in x2); ``RARE`` rows carry label 0."""
    rng = np.random.default_rng(0)
    x1 = rng.uniform(0.5, 4.5, ROWS)
    x2 = rng.normal(size=ROWS)
    y = np.clip(np.floor(x1), 1, 4).astype(int)
    x1[:RARE], y[:RARE] = 0.2, 0
    lines = [f"{a:.4f},{b:.4f},{c}" for a, b, c in zip(x1, x2, y, strict=True)]
    path.write_text("x1,x2,grade\n" + "\n".join(lines) + "\n")
    return path


def _study(argv):
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(argv)
    return code, stdout.getvalue()


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("study")
    out = tmp / "out"
    argv = [str(_csv(tmp / "grades.csv")), "--label", "grade", "--budget", "quick"]
    argv += ["--out", str(out), "--tracking", f"sqlite:///{tmp / 'mlflow.db'}"]
    code, printed = _study(argv)
    files = sorted(out.glob("results/**/seed=*.json"))
    mtimes = {f: f.stat().st_mtime_ns for f in files}
    return {
        "argv": argv,
        "code": code,
        "printed": printed,
        "out": out,
        "db": tmp / "mlflow.db",
        "files": files,
        "mtimes": mtimes,
    }


def test_the_study_writes_the_report_into_out(study):
    assert study["code"] == 0
    reports = study["out"] / "reports"
    assert (reports / "report.html").stat().st_size > 0
    assert "## Recommendation" in (reports / "report.md").read_text()


def test_the_terminal_shows_the_recommendation_per_metric_and_the_report_path(study):
    lines = study["printed"].splitlines()
    for title in ("test exact match", "test MAE"):
        line = next(t for t in lines if t.strip().startswith(f"{title}: "))
        value = r"(\(\d\.\d{3} ± \d\.\d{3}\)|\d\.\d{3} \(deterministic\))"
        assert re.search(rf": use .+ {value}", line), line
        assert "; as good: " in line and "; clearly worse: " in line
    assert lines[-1] == f"report: {study['out'] / 'reports' / 'report.html'}"


def test_every_finished_run_is_in_the_study_s_mlflow_store(study):
    ids = {results_io.read(f).mlflow_run_id for f in study["files"]} - {None}
    assert len(study["files"]) == 77
    assert len(ids) == len(study["files"])
    with contextlib.closing(sqlite3.connect(study["db"])) as db:
        stored = {row[0] for row in db.execute("SELECT run_uuid FROM runs")}
    assert ids <= stored


def test_a_rare_extreme_label_stays_in_training(study):
    dataset = data.load(study["out"] / "data" / "grades")
    assert int(np.sum(dataset.train.y == 0)) == RARE
    assert "labels train 0–4" in (study["out"] / "reports" / "report.md").read_text()


def test_an_out_with_results_is_refused_then_resume_retrains_nothing(study, capsys):
    code, _ = _study(study["argv"])
    assert code == 2
    assert "--resume" in capsys.readouterr().err
    code, printed = _study([*study["argv"], "--resume"])
    assert code == 0
    after = {f: f.stat().st_mtime_ns for f in study["out"].glob("results/**/seed=*.json")}
    assert after == study["mtimes"]
    assert "report: " in printed
