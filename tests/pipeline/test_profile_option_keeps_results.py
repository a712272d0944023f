"""``python -m roundlab.sweep --profile NAME`` (another profile than params.yaml's, also when
``--params FILE`` names it) does not sweep into the project's results/, however it is named,
while a dataset's directory there holds result files its record does not give to that profile:
the sweep keeps its results directory to its own plan, so it would remove them. It says how to
sweep elsewhere and removes nothing; params.yaml's own profile, results recorded as that
profile's, another directory and a dry run go ahead. The sweep itself is replaced by a recorder:
what matters is whether it starts."""

from __future__ import annotations

import pytest
import yaml

from roundlab.sweep import cli, manifest
from roundlab.sweep.profile import load_profile

PROFILES = {
    "p": {"seeds": [0], "approaches": ["regression"]},
    "q": {"datasets": ["count"], "seeds": [0], "approaches": ["regression"]},
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project whose results/ holds profile p's plan and one result file of it in count; the
    sweep's run replaced by a recorder of the results directories it was given."""
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text("profile: p\ndatasets:\n  count: {}\n  affine: {}\n")
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump(PROFILES))
    manifest.start(load_profile(tmp_path / "params.yaml", "p"), tmp_path / "results")
    kept = tmp_path / "results" / "count" / "regression" / "lr=0.001" / "seed=0.json"
    kept.parent.mkdir(parents=True)
    kept.write_text("{}")
    started = []
    monkeypatch.setattr(cli, "run", lambda _p, results, *a, **k: started.append(results) or {})
    return tmp_path, started


def _files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def _refused(root, started, capsys, argv, given="--profile=q"):
    before = _files(root)
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.rstrip().endswith(f"Received: {given}")
    assert "--results DIR" in err and not started
    assert _files(root) == before
    return err


@pytest.mark.parametrize(
    "where",
    [[], ["--dataset", "count"], ["--results", "results"], ["--results", "./results/"]],
)
def test_another_profile_into_the_projects_results_is_refused_in_one_line(project, capsys, where):
    root, started = project
    err = _refused(root, started, capsys, ["--profile", "q", *where])
    assert "holds result files of other runs (1 of profile p)" in err


def test_result_files_whose_record_is_gone_count_as_another_profiles(project, capsys):
    root, started = project
    (root / "results" / "count" / manifest.FILE).unlink()
    err = _refused(root, started, capsys, ["--profile", "q"])
    assert f"(1 with no {manifest.FILE})" in err


def test_a_dataset_the_profile_does_not_train_is_refused_too(project, capsys):
    """q does not train affine: its stage would empty affine's directory."""
    root, started = project
    held = root / "results" / "affine" / "regression" / "lr=0.001" / "seed=0.json"
    held.parent.mkdir(parents=True)
    held.write_text("{}")
    _refused(root, started, capsys, ["--profile", "q", "--dataset", "affine"])


def test_another_params_file_naming_another_profile_is_refused_too(project, capsys):
    """``--params FILE`` whose profile is not params.yaml's would replace the pipeline's runs as
    ``--profile`` would; a params file naming params.yaml's own profile goes ahead."""
    root, started = project
    other = root / "other.yaml"
    other.write_text("profile: q\ndatasets:\n  count: {}\n")
    err = _refused(root, started, capsys, ["--params", str(other)], given=f"--params={other}")
    assert "holds result files of other runs (1 of profile p)" in err
    other.write_text("profile: p\ndatasets:\n  count: {}\n  affine: {}\n")
    assert cli.main(["--params", str(other)]) == 0
    assert started == [root / "results"]


def test_params_yamls_own_profile_goes_ahead(project):
    root, started = project
    params = root / "params.yaml"
    params.write_text(params.read_text().replace("profile: p", "profile: q"))
    assert cli.main(["--profile", "q"]) == 0
    assert started == [root / "results"]


def test_results_recorded_as_the_same_profiles_go_ahead(project):
    root, started = project
    manifest.start(load_profile(root / "params.yaml", "q"), root / "results")  # count: q's
    assert cli.main(["--profile", "q", "--dataset", "count"]) == 0
    assert started == [root / "results"]


def test_a_directory_of_its_own_goes_ahead(project):
    root, started = project
    assert cli.main(["--profile", "q", "--results", str(root / "results-q")]) == 0
    assert started == [root / "results-q"]


def test_a_dry_run_is_not_refused(project, capsys):
    root, started = project
    before = _files(root)
    assert cli.main(["--profile", "q", "--dry-run"]) == 0
    assert "holds result files" not in capsys.readouterr().err
    assert _files(root) == before and not started


@pytest.mark.parametrize("text", ["profile: p\nplanned: [unclosed\n", "", "runs: 5\n"])
def test_a_record_that_is_not_one_is_refused_in_one_line_naming_it(project, capsys, text):
    """Cut short, emptied or edited by hand: named as what it is, not counted as a directory
    with no record (whose advice would be wrong)."""
    root, started = project
    record = root / "results" / "count" / manifest.FILE
    record.write_text(text)
    before = _files(root)
    assert cli.main(["--profile", "q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"config error: {record} is not a")
    assert err.count("\n") == 1 and not started and _files(root) == before
