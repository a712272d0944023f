"""The report's files on a full disk: the one that cannot be written keeps its previous
version, and the command ends in one line naming it."""

from __future__ import annotations

from synthetic_results import synthetic_runs, write_runs

from disk_faults import fill_disk_for
from roundlab.report.__main__ import main


def test_a_full_disk_while_writing_the_report_keeps_the_previous_one(tmp_path, monkeypatch, capsys):
    results = write_runs(tmp_path / "results", synthetic_runs())
    reports = tmp_path / "reports"
    argv = ["--results", str(results), "--out", str(reports), "--no-gradients", "--no-cost"]
    assert main(argv) == 0
    before = (reports / "report.html").read_bytes()
    fill_disk_for(monkeypatch, "report.html")
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"write error: {reports / 'report.html'} must be written whole")
    assert err.count("\n") == 1 and "ENOSPC" in err
    assert (reports / "report.html").read_bytes() == before
    assert not [p for p in reports.rglob("*") if ".tmp-" in p.name]
