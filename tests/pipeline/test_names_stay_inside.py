"""Names that become directories (dataset, approach, method, activation, profile) cannot send a
write outside the results directory: they are refused at validation with one ``config error:``
line, and a result path that would still leave results_dir is refused where it is made."""

from pathlib import Path

import pytest
import yaml

from roundlab.errors import ConfigError
from roundlab.run.validate import validate
from roundlab.runs import RunKey, check_name
from roundlab.sweep import cli
from training.processes import run

# Each would land beside the project (tmp_path/escaped) if it were joined to a path unchecked.
ESCAPES = ["../../escaped", "../..", "..", "a/../../../escaped", "/tmp/escaped", ".hidden", ""]


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("name", ESCAPES)
def test_a_name_that_could_leave_its_directory_is_refused(name):
    with pytest.raises(ConfigError, match="dataset.name must be a name .*Received: dataset.name="):
        check_name(name, "dataset.name")


@pytest.mark.parametrize("name", ["count", "digit_sum", "anes96", "sigmoid_round_np", "my-data.v2"])
def test_ordinary_names_pass(name):
    assert check_name(name, "dataset.name") == name


@pytest.mark.parametrize(
    "override, key",
    [
        ("dataset.name=../../escaped", "dataset.name"),
        ("approach.method=../../escaped", "approach.method"),
    ],
)
def test_validation_refuses_a_config_whose_names_leave_results_dir(compose, override, key):
    cfg = compose("approach=ordinal", override)
    with pytest.raises(ConfigError, match=f"^{key} must be a name .*Received: {key}="):
        validate(cfg)


@pytest.mark.parametrize("dataset", ["../../escaped", "/abs/escaped", "x/../../escaped"])
def test_a_result_path_outside_results_dir_is_refused_where_it_is_made(tmp_path, dataset):
    key = RunKey.of(dataset, "regression")
    with pytest.raises(ConfigError, match="must stay inside results_dir"):
        key.result_path(tmp_path / "results")
    inside = RunKey.of("count", "regression").result_path(tmp_path / "results")
    assert inside.is_relative_to(tmp_path / "results")


def test_a_single_run_named_to_escape_stops_in_one_line_and_writes_nothing_outside(tmp_path, tiny):
    project = tmp_path / "project"
    project.mkdir()
    code, _, err, _ = run(
        project,
        [*tiny, "approach=regression", "tracking.enabled=false", "dataset.name=../../escaped"],
    )
    assert code == 1
    assert err.strip().splitlines()[-1] == (
        "config error: dataset.name must be a name of letters, digits, '_', '-' and '.' that "
        "starts with a letter or digit (it names a directory). Received: "
        "dataset.name='../../escaped'"
    )
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]  # nothing beside it
    assert not [f for f in _files(project) if f.endswith((".json", ".keras"))]


@pytest.mark.parametrize(
    "entry, key",
    [
        ({"dataset_overrides": {"count": ["name=../.."]}}, "dataset_overrides.count: dataset.name"),
        ({"overrides": ["dataset.name=../../../escaped"]}, "overrides: dataset.name"),
        ({"overrides": ["activation=../../escaped"]}, "overrides: activation"),
        ({"overrides": ["approach.method='../x'"]}, "overrides: approach.method"),
        ({"activations": {"../escaped": None}}, "activations"),
        ({"datasets": ["../escaped"]}, "datasets"),
        ({"overrides": ["hydra.sweep.subdir=../../../escaped"]}, "overrides must not set hydra"),
        ({"overrides": ["results_dir=/tmp/escaped"]}, "overrides must not set results_dir"),
    ],
)
def test_a_profile_whose_names_leave_the_results_is_refused_before_anything_runs(
    tmp_path, capsys, entry, key
):
    project = tmp_path / "project"
    project.mkdir()
    (project / "params.yaml").write_text("profile: p\ndatasets: [count]\n")
    profile = {"datasets": ["count"], "seeds": [0], "approaches": ["regression"], **entry}
    (project / "profiles.yaml").write_text(yaml.safe_dump({"p": {**profile, "tracking": False}}))
    argv = ["--params", str(project / "params.yaml"), "--results", str(project / "results")]
    code = cli.main([*argv, "--sweep-dir", str(project / "multirun")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith(f"config error: profiles.p.{key}"), err
    assert _files(project) == {"params.yaml", "profiles.yaml"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]


def test_a_profile_name_that_could_leave_its_directory_is_refused(tmp_path, capsys):
    (tmp_path / "params.yaml").write_text("profile: ../p\ndatasets: [count]\n")
    (tmp_path / "profiles.yaml").write_text("../p: {datasets: [count], seeds: [0]}\n")
    assert cli.main(["--params", str(tmp_path / "params.yaml"), "--dry-run"]) == 2
    assert capsys.readouterr().err.startswith("config error: profile must be a name")
