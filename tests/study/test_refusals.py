"""`roundlab study` refuses bad data and options before anything is written: exit code 2 and
one line on stderr naming the file, the column and the row (as `python -m roundlab.data`
does, through the same CSV reader)."""

from __future__ import annotations

from pathlib import Path

import pytest

from roundlab.data.__main__ import main as generate
from roundlab.study.cli import main

GOOD = ["a,b,y", "0.1,1,1", "0.2,2,2", "0.3,3,3", "0.4,4,1", "0.5,5,2", "0.6,6,3"]


def _write(tmp_path: Path, lines: list[str], name: str = "d.csv") -> Path:
    path = tmp_path / name
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


def _edited(row: int, text: str) -> list[str]:
    """GOOD with data row ``row`` (1 = the first under the header) replaced by ``text``."""
    lines = list(GOOD)
    lines[row] = text
    return lines


@pytest.mark.parametrize(
    ("lines", "options", "expected"),
    [
        (None, [], ["data must name an existing CSV file", "missing.csv"]),
        ([], [], ["must start with a header row"]),
        (GOOD[:1], [], ["must hold at least 3 data rows", "rows=0"]),
        (GOOD, ["--label", "z"], ["label must be one of the columns", "label='z'"]),
        (
            _edited(3, "0.3,3,2.5"),
            [],
            ["label column 'y'", "must hold integers", "value='2.5'", "row=3", "line=4"],
        ),
        (
            _edited(2, "0.2,two,2"),
            [],
            ["feature column 'b'", "finite numbers", "value='two'", "row=2", "line=3"],
        ),
        (_edited(5, "0.5,,2"), [], ["column 'b'", "must have a value", "row=5"]),
        (GOOD, ["--features", "a,c"], ["features must be columns", "features=['c']"]),
    ],
    ids=[
        "missing-file",
        "no-header",
        "header-only",
        "label-absent",
        "label-not-integer",
        "feature-not-numeric",
        "feature-missing",
        "feature-absent",
    ],
)
def test_refused_data_fails_in_one_line_naming_file_column_and_row(
    tmp_path, capsys, lines, options, expected
):
    data = tmp_path / "missing.csv" if lines is None else _write(tmp_path, lines)
    out = tmp_path / "study"
    argv = [str(data), *(options if "--label" in options else ["--label", "y", *options])]
    code = main([*argv, "--out", str(out), "--tracking", "none"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ")
    for part in expected:
        assert part in err
    assert str(data) in err or "missing.csv" in err
    assert not out.exists()


TRACKING = (
    "--tracking must be none or an MLflow tracking URI with a scheme "
    "(sqlite:///path/mlflow.db, http://host:5000). Received: --tracking="
)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--test", "absent.csv"], "--test must name an existing CSV file. Received: --test="),
        (["--tracking", "nonee"], TRACKING),
        (["--tracking", "/data/mlruns"], TRACKING),
    ],
    ids=["missing-test-file", "tracking-typo", "tracking-bare-path"],
)
def test_a_refused_option_fails_in_one_line_naming_it_and_writes_nothing(
    tmp_path, capsys, monkeypatch, options, expected
):
    monkeypatch.chdir(tmp_path)
    data = _write(tmp_path, GOOD)
    out = tmp_path / "study"
    code = main([str(data), "--label", "y", *options, "--out", str(out)])
    assert code == 2
    assert capsys.readouterr().err == f"error: {expected}{options[1]!r}\n"
    assert not out.exists()


def test_data_command_gives_the_study_s_message(tmp_path, capsys):
    data = _write(tmp_path, _edited(3, "0.3,3,2.5"))
    main([str(data), "--label", "y", "--out", str(tmp_path / "s"), "--tracking", "none"])
    study = capsys.readouterr().err.removeprefix("error: ")
    code = generate(["csv", f"path={data}", "label=y", "--data-dir", str(tmp_path / "data")])
    assert code != 0
    assert capsys.readouterr().err.removeprefix("error: ") == study


def test_a_file_name_that_is_no_directory_name_asks_for_a_name(tmp_path, capsys):
    data = _write(tmp_path, GOOD, "my data.csv")
    code = main([str(data), "--label", "y", "--out", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert code == 2
    assert "pass --name" in err and "my data.csv" in err
    assert main([str(data), "--label", "y", "--name", "my data"]) == 2
    assert "--name must be a name of letters" in capsys.readouterr().err


def test_a_constant_label_is_refused_naming_its_one_value(tmp_path, capsys):
    data = _write(tmp_path, ["a,y", *(f"{i},3" for i in range(12))])
    code = main([str(data), "--label", "y", "--out", str(tmp_path / "s")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "label column 'y'" in err and "at least two values" in err and "values=[3]" in err


def test_a_file_named_like_a_builtin_dataset_is_read_as_a_csv(tmp_path, capsys):
    data = _write(tmp_path, GOOD, "count.csv")
    out = tmp_path / "file"
    out.write_text("not a directory")
    code = main([str(data), "--label", "y", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2  # the data was checked as a CSV; the --out file stopped it
    assert err == f"error: --out must be a directory. Received: --out={out} (a file)\n"


def test_resume_continues_only_the_same_study(tmp_path, capsys):
    data = _write(tmp_path, GOOD)
    out = tmp_path / "study"
    code = main([str(data), "--label", "y", "--out", str(out), "--resume"])
    assert code == 2 and "--resume needs a study to continue" in capsys.readouterr().err
    out.mkdir()
    (out / "params.yaml").write_text(
        "profile: quick\ndatasets:\n  d: {config: csv, path: other.csv, label: y}\n"
    )
    code = main([str(data), "--label", "y", "--out", str(out), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "--resume continues the same study" in err and "other.csv" in err


def test_an_out_holding_results_is_refused_without_resume(tmp_path, capsys):
    data = _write(tmp_path, GOOD)
    out = tmp_path / "study"
    result = out / "results" / "d" / "regression" / "seed=0.json"
    result.parent.mkdir(parents=True)
    result.write_text("{}")
    code = main([str(data), "--label", "y", "--out", str(out), "--tracking", "none"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1
    assert "--resume" in err and "another --out" in err and str(out) in err
    assert not (out / "params.yaml").exists()


def test_an_unreachable_tracking_server_stops_the_study_with_its_own_switch_as_advice(
    tmp_path, capsys
):
    """--tracking names a server that does not answer: the sweep stops before any multirun and
    the advice is the study's --tracking none, not a profile's settings the study never shows;
    a rerun without --resume is accepted, since no result was written."""
    data = _write(tmp_path, GOOD)
    out = tmp_path / "study"
    dead = "http://127.0.0.1:9"  # the discard port: nothing listens there
    code = main([str(data), "--label", "y", "--out", str(out), "--tracking", dead])
    (line,) = [x for x in capsys.readouterr().err.splitlines() if x.startswith("tracking error")]
    assert code == 1
    assert line.startswith(f"tracking error: MLflow tracking server {dead} is not reachable")
    assert line.endswith("; start it, or run the study untracked with --tracking none")
    assert not list(out.rglob("seed=*.json")) and not (out / "multirun").exists()
