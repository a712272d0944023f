"""End to end: a fresh clone of the committed repository, `dvc repro` on the tiny profile.

The profile is chosen the way a DVC user would: `dvc exp run -S profile=tiny` sets it in the
clone's params.yaml and runs the pipeline, so the repository under test is never touched.
The clone's own src/ goes first on PYTHONPATH: the installed roundlab is the working copy the
tests run from, and the pipeline must run the committed code.
"""

import json
import time

import pytest
from report_checks import check_report

from clones import BIN, fresh_clone, run


@pytest.mark.slow
def test_dvc_repro_on_the_tiny_profile_builds_the_report_and_a_second_repro_does_nothing(
    tmp_path,
):
    clone, env = fresh_clone(tmp_path)
    dvc = str(BIN / "dvc")

    run([dvc, "exp", "run", "-S", "profile=tiny"], clone, env)

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
    second = run([dvc, "repro"], clone, env)
    assert "Data and pipelines are up to date." in second.stdout
    assert "Running stage" not in second.stdout
    assert time.perf_counter() - start < 60
    shown = run([dvc, "metrics", "show"], clone, env).stdout
    assert "reports/headline.json" in shown and "reports/metrics/" not in shown
    every = run([dvc, "metrics", "show", "reports/metrics"], clone, env).stdout
    assert "reports/metrics/rounding-sigmoid_round.json" in every
