"""``python -m roundlab.sweep --dataset NAME`` (the command of the DVC stage sweep@<name>)
takes only a dataset of params.yaml, and a dry run writes nothing."""

from __future__ import annotations

import yaml

from roundlab.sweep.cli import main

PROFILES = {
    "p": {"seeds": [0], "approaches": ["regression"]},
    "q": {"datasets": ["count"], "seeds": [0]},
}


def _project(tmp_path, datasets: str, profile: str = "p"):
    (tmp_path / "params.yaml").write_text(f"profile: {profile}\ndatasets:\n{datasets}")
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump(PROFILES))
    return ["--params", str(tmp_path / "params.yaml"), "--results", str(tmp_path / "results")]


def _files(tmp_path):
    return sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())


def test_a_dataset_outside_params_yaml_is_refused_in_one_line(tmp_path, capsys):
    argv = _project(tmp_path, "  count: {}\n")
    keep = tmp_path / "results" / "x" / "seed=0.json"
    keep.parent.mkdir(parents=True)
    keep.write_text("{}")
    for name in ("..", "nosuch"):
        assert main([*argv, "--dataset", name, "--dry-run"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"Received: --dataset='{name}'" in err
    assert keep.read_text() == "{}"


def test_a_dry_run_of_a_dataset_the_profile_does_not_train_writes_nothing(tmp_path, capsys):
    argv = _project(tmp_path, "  count: {}\n  affine: {}\n", profile="q")
    before = _files(tmp_path)
    assert main([*argv, "--dataset", "affine", "--dry-run"]) == 0
    assert "does not train affine" in capsys.readouterr().out
    assert _files(tmp_path) == before


def test_a_key_the_dataset_config_lacks_is_named_with_its_entry(tmp_path, capsys):
    argv = _project(tmp_path, "  h: {path: h.csv, label: y, colour: red}\n")
    assert main([*argv, "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "params.yaml datasets.h must set only keys of the dataset config csv" in err
    assert "colour" in err


def test_a_missing_params_file_is_one_line(tmp_path, capsys):
    assert main(["--params", str(tmp_path / "nofile.yaml")]) == 2
    assert capsys.readouterr().err == (
        f"config error: --params must name a params file. Received: {tmp_path / 'nofile.yaml'}\n"
    )


def test_a_dataset_the_profile_does_not_train_says_what_it_removed(tmp_path, capsys):
    """The DVC stage of a dataset the active profile leaves out (dvc exp run -S profile=q)
    empties its results directory, as the stage's output must be, and says so in one line."""
    argv = _project(tmp_path, "  count: {}\n  affine: {}\n", profile="q")
    old = tmp_path / "results" / "affine" / "regression" / "lr=0.001" / "seed=0.json"
    old.parent.mkdir(parents=True)
    old.write_text("{}")
    assert main([*argv, "--dataset", "affine"]) == 0
    out = capsys.readouterr().out
    assert "does not train affine" in out
    assert "sweep: removed 1 result file(s) of runs no longer planned" in out
    assert not old.exists()
    record = yaml.safe_load((tmp_path / "results" / "affine" / "_sweep.yaml").read_text())
    assert record["profile"] == "q" and record["planned"] == []
