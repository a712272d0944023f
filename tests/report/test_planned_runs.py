"""The report names every planned run without a result file, also when the sweep's records
(results/<name>/_sweep.yaml) are gone: the plan is recomputed from the profile."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from synthetic_results import _run, synthetic_runs, write_runs

from roundlab import results
from roundlab.report.__main__ import main
from roundlab.report.pipeline import build_report
from roundlab.report.planned import RECOMPUTED, missing_runs, planned_runs

KEPT = "count/regression/default/lr=0.001/seed=0.json"
UNTRAINED = "count/regression/default/lr=0.001/seed=9.json"
PROFILES = """\
p:
  datasets: [count]
  seeds: [0, 1, 2, 9]
  learning_rates: [0.001]
  approaches: [regression]
"""


def _report(tmp_path, results_dir, *extra: str) -> int:
    out = ["--results", str(results_dir), "--out", str(tmp_path / "reports")]
    return main([*out, "--no-gradients", "--no-cost", *extra])


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project root with the profile ``p`` active: its plan is the synthetic grid's
    count/regression runs plus seed 9, which never ran."""
    (tmp_path / "params.yaml").write_text("profile: p\ndatasets: [count, digit_sum]\n")
    (tmp_path / "profiles.yaml").write_text(PROFILES)
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    return tmp_path


def test_planned_runs_are_named_when_the_manifest_is_gone(project):
    directory = write_runs(project / "results", synthetic_runs())
    assert not (directory / "_sweep.yaml").exists()
    build_report(directory, project / "reports", project, gradients=False)
    md = (project / "reports" / "report.md").read_text()
    assert "sweep profile `p` (its plan recomputed from profiles.yaml" in md
    assert "1 planned runs wrote no result file" in md and UNTRAINED in md


def test_the_command_recomputes_the_plan_of_the_projects_results(project):
    directory = write_runs(project / "results", synthetic_runs())
    assert _report(project, directory) == 0
    assert UNTRAINED in (project / "reports" / "report.md").read_text()


def test_another_directory_without_a_manifest_has_a_plan_only_when_a_profile_is_named(project):
    directory = write_runs(project / "elsewhere", synthetic_runs())
    build_report(directory, project / "reports", project, gradients=False)
    md = (project / "reports" / "report.md").read_text()
    assert "sweep profile `unknown`" in md and UNTRAINED not in md
    build_report(directory, project / "reports", project, gradients=False, profile="p")
    assert UNTRAINED in (project / "reports" / "report.md").read_text()


def test_a_profile_that_cannot_be_read_is_one_config_error_line(project, capsys):
    directory = write_runs(project / "results", synthetic_runs())
    assert _report(project, directory, "--profile", "absent") == 2
    err = capsys.readouterr().err
    assert err.startswith("config error: profile must name an entry of") and "absent" in err
    assert err.count("\n") == 1


def test_the_manifest_wins_over_the_profile(project):
    directory = write_runs(project / "results", synthetic_runs())
    (directory / "_sweep.yaml").write_text(f"profile: tiny\nplanned:\n- {KEPT}\n")
    build_report(directory, project / "reports", project, gradients=False)
    md = (project / "reports" / "report.md").read_text()
    assert "sweep profile `tiny`." in md and UNTRAINED not in md
    assert results.read(directory / KEPT).ok


def test_a_recomputed_plan_holds_the_rate_extensions_its_result_files_lead_to(project):
    """Regression is better at 0.01 than at 0.001 on val: the sweep would have trained it at
    0.03 (round 1), whose files are missing, so the recomputation names them and stops there."""
    (project / "profiles.yaml").write_text(
        "p: {datasets: [count], seeds: [0, 1], learning_rates: [0.001, 0.01], "
        "approaches: [regression]}\n"
    )
    runs = [
        _run("count", "regression", s, em, 0.5, lr=lr)
        for s in (0, 1)
        for lr, em in ((0.001, 0.4), (0.01, 0.6))
    ]
    directory = write_runs(project / "results", runs)
    manifest = planned_runs(directory, project)
    extended = [p for p in manifest["planned"] if "/lr=0.03/" in p]
    assert extended == [
        "count/regression/default/lr=0.03/seed=0.json",
        "count/regression/default/lr=0.03/seed=1.json",
    ]
    assert len(manifest["planned"]) == 6
    assert missing_runs(directory, manifest) == extended


def test_a_dataset_whose_record_alone_is_gone_is_recomputed_not_dropped(project):
    """digit_sum keeps its record, count's is deleted: count's runs stay in the report, its
    plan recomputed (seed 9 named as missing), and the report says which plan was recomputed."""
    (project / "profiles.yaml").write_text(PROFILES.replace("[count]", "[count, digit_sum]"))
    directory = write_runs(project / "results", synthetic_runs())
    kept = sorted(
        p.relative_to(directory).as_posix() for p in directory.rglob("digit_sum/**/*.json")
    )
    (directory / "digit_sum" / "_sweep.yaml").write_text(
        yaml.safe_dump({"profile": "p", "dataset": "digit_sum", "planned": kept})
    )
    manifest = planned_runs(directory, project)
    assert set(manifest["datasets"]) == {"digit_sum", "count"}
    assert UNTRAINED in missing_runs(directory, manifest)
    assert set(kept) <= set(manifest["planned"]) and KEPT in manifest["planned"]
    build_report(directory, project / "reports", project, gradients=False)
    md = (project / "reports" / "report.md").read_text()
    assert "its plan recomputed from profiles.yaml for count" in md
    assert "on 2 datasets" in md and UNTRAINED in md


def _keep_only_digit_sums_record(directory):
    kept = sorted(
        p.relative_to(directory).as_posix() for p in directory.rglob("digit_sum/**/*.json")
    )
    (directory / "digit_sum" / "_sweep.yaml").write_text(
        yaml.safe_dump({"profile": "p", "dataset": "digit_sum", "planned": kept})
    )


def test_another_directory_recomputes_a_missing_record_of_the_named_profile(project):
    (project / "profiles.yaml").write_text(PROFILES.replace("[count]", "[count, digit_sum]"))
    directory = write_runs(project / "results-p", synthetic_runs())
    _keep_only_digit_sums_record(directory)
    assert planned_runs(directory, project)["datasets"] == ["digit_sum"]  # no profile named
    manifest = planned_runs(directory, project, profile="p")
    assert set(manifest["datasets"]) == {"digit_sum", "count"}
    assert UNTRAINED in missing_runs(directory, manifest)


def test_a_missing_record_of_a_dataset_the_profile_does_not_train_recomputes_nothing(project):
    """p trains count only: digit_sum's record is there, count's is the one the profile
    plans; with count's record kept and digit_sum's gone nothing is said to be recomputed."""
    directory = write_runs(project / "results", synthetic_runs())
    (directory / "count" / "_sweep.yaml").write_text(
        yaml.safe_dump({"profile": "p", "dataset": "count", "planned": [KEPT]})
    )
    manifest = planned_runs(directory, project)
    assert manifest["datasets"] == ["count"] and RECOMPUTED not in manifest


RECORD = "profile: p\ndataset: count\n"
NOT_RECORDS = {
    "cut short": "profile: p\nplanned: [unclosed\n",
    "a list": "- a list\n",
    "not UTF-8": "\xff\xfe",
    "empty": "",
    "other keys": "runs: 5\n",
    "no profile": "dataset: count\nplanned: []\n",
    "another dataset's": "profile: p\ndataset: digit_sum\nplanned: []\n",
    "a list for a dataset": "profile: p\ndataset: [count]\nplanned: []\n",
    "no planned": RECORD,
    "a number for planned": RECORD + "planned: 5\n",
    "a string for planned": RECORD + "planned: abc\n",
    "numbers in planned": RECORD + "planned: [1, 2]\n",
    "a path outside": RECORD + "planned: [/etc/passwd]\n",
    "a path up": RECORD + "planned: [../../x.json]\n",
    "a Windows path": RECORD + "planned: ['..\\\\x.json']\n",
    "a word for jobs": RECORD + "jobs: x\nplanned: []\n",
    "jobs null": RECORD + "jobs: null\nplanned: []\n",
    "processes 0": RECORD + "processes: 0\nplanned: []\n",
}


@pytest.mark.parametrize("text", NOT_RECORDS.values(), ids=NOT_RECORDS.keys())
def test_a_record_that_is_not_one_is_a_config_error_line_naming_it(project, capsys, text):
    """A cut-short or hand-edited results/<name>/_sweep.yaml stops the report in one line that
    names the file and says what to do, not with a traceback and not by leaving its dataset out
    of the report; nothing is written."""
    directory = write_runs(project / "results", synthetic_runs())
    record = directory / "count" / "_sweep.yaml"
    record.write_bytes(text.encode("latin-1"))
    assert _report(project, directory) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"config error: {record} is not")
    assert "remove it" in err and "--profile NAME" in err and err.count("\n") == 1
    assert not (project / "reports").exists()


def test_the_error_names_the_value_however_long(project, capsys):
    """A hand-edited absolute path, the likeliest edit, is named in the message, not only its
    type; one too long for a line is cut in the middle."""
    directory = write_runs(project / "results", synthetic_runs())
    outside = f"/home/someone/projects/roundlab/results/{KEPT}"
    (directory / "count" / "_sweep.yaml").write_text(RECORD + f"planned: [{outside}]\n")
    assert _report(project, directory) == 2
    err = capsys.readouterr().err
    assert f"its planned holds '{outside}', not a result file's path inside results/" in err
    (directory / "count" / "_sweep.yaml").write_text(RECORD + f"planned: [/{'x' * 400}.json]\n")
    assert _report(project, directory) == 2
    err = capsys.readouterr().err
    assert "'/xxx" in err and "...xxx" in err and "x.json'" in err and len(err) < 700


def test_a_record_that_cannot_be_read_is_a_config_error_line_naming_it(
    project, capsys, monkeypatch
):
    """An unreadable record (its permissions, a failing disk) as well: one line, not a
    traceback (as root, permissions do not stop a read, so the read itself is made to fail)."""
    directory = write_runs(project / "results", synthetic_runs())
    record = directory / "count" / "_sweep.yaml"
    record.write_text(yaml.safe_dump({"profile": "p", "dataset": "count", "planned": [KEPT]}))
    read_text = Path.read_text

    def refused(self, *args, **kwargs):
        if self == record:
            raise PermissionError(13, "Permission denied", str(self))
        return read_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", refused)
    assert _report(project, directory) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"config error: {record} is not a readable sweep record")
    assert "Permission denied" in err and err.count("\n") == 1
