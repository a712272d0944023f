"""The report trusts only result files that hold what training wrote: a file edited since (its
digest does not match) stops it in one line naming the file, before it writes anything."""

from __future__ import annotations

import json

from synthetic_results import synthetic_runs, write_runs

from roundlab.report.__main__ import main
from roundlab.report.pipeline import build_report

EDITED = "count/regression/default/lr=0.001/seed=0.json"


def _edit(path, change) -> None:
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")


def _report(tmp_path, results_dir) -> int:
    out = ["--results", str(results_dir), "--out", str(tmp_path / "reports")]
    return main([*out, "--no-gradients", "--no-cost"])


def test_a_result_edited_by_hand_is_refused_in_one_line_and_no_report_is_written(tmp_path, capsys):
    directory = write_runs(tmp_path / "results", synthetic_runs())
    _edit(directory / EDITED, lambda d: d["metrics"]["test"].update(exact_match=0.999))
    assert _report(tmp_path, directory) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("result refused: ") and str(directory / EDITED) in err
    assert not (tmp_path / "reports").exists()


def test_results_as_training_wrote_them_build_with_no_unverified_note(tmp_path):
    directory = write_runs(tmp_path / "results", synthetic_runs())
    assert _report(tmp_path, directory) == 0
    md = (tmp_path / "reports" / "report.md").read_text()
    assert "each checked against its content digest" in md
    assert "predate content digests" not in md


def test_result_files_older_than_digests_are_read_and_counted_as_unverified(tmp_path):
    directory = write_runs(tmp_path / "results", synthetic_runs())

    def as_version_3(document):
        del document["digest"]
        document["format_version"] = 3

    _edit(directory / EDITED, as_version_3)
    build_report(directory, tmp_path / "reports", tmp_path, gradients=False)
    md = (tmp_path / "reports" / "report.md").read_text()
    assert "1 result files predate content digests (format_version < 4)" in md
