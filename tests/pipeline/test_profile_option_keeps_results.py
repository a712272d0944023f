"""``python -m roundlab.sweep --profile NAME`` (another profile than params.yaml's) does not
sweep into the project's results/ while it holds another profile's runs: the sweep keeps its
results directory to its own plan, so it would remove them. It says how to sweep elsewhere and
removes nothing; params.yaml's own profile, a directory of its own and a dry run go ahead."""

from __future__ import annotations

import pytest
import yaml

from roundlab.sweep import manifest
from roundlab.sweep.cli import _check_not_replacing, main
from roundlab.sweep.profile import load_profile

PROFILES = {
    "p": {"seeds": [0], "approaches": ["regression"]},
    "q": {"datasets": ["count"], "seeds": [0], "approaches": ["regression"]},
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project whose results/ holds profile p's plan and one result file of it."""
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    (tmp_path / "params.yaml").write_text("profile: p\ndatasets:\n  count: {}\n  affine: {}\n")
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump(PROFILES))
    manifest.start(load_profile(tmp_path / "params.yaml", "p"), tmp_path / "results")
    kept = tmp_path / "results" / "count" / "regression" / "lr=0.001" / "seed=0.json"
    kept.parent.mkdir(parents=True)
    kept.write_text("{}")
    return tmp_path, kept


def _files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("dataset", [[], ["--dataset", "count"]])
def test_another_profile_into_results_is_refused_in_one_line(project, capsys, dataset):
    root, kept = project
    before = _files(root)
    assert main(["--profile", "q", *dataset]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("config error: --profile q would remove")
    assert "the 1 result file(s) of profile p" in err and "--results DIR" in err
    assert err.rstrip().endswith("Received: --profile=q")
    assert _files(root) == before


def test_another_dataset_of_the_results_does_not_count(project):
    root, _ = project
    _check_not_replacing(
        load_profile(root / "params.yaml", "q"), root / "params.yaml", root / "results", "affine"
    )  # affine holds no result file


def test_params_yamls_own_profile_goes_ahead(project):
    root, _ = project
    params = root / "params.yaml"
    params.write_text(params.read_text().replace("profile: p", "profile: q"))
    _check_not_replacing(load_profile(params, "q"), params, root / "results", None)


def test_results_holding_the_same_profiles_plan_go_ahead(project):
    root, _ = project
    params = root / "params.yaml"
    manifest.start(load_profile(params, "q"), root / "results")  # count's record: profile q
    _check_not_replacing(load_profile(params, "q"), params, root / "results", "count")


def test_a_directory_of_its_own_or_a_dry_run_is_not_checked(project, capsys):
    root, kept = project
    assert main(["--profile", "q", "--dry-run"]) == 0
    assert "would remove" not in capsys.readouterr().err
    assert kept.is_file()
