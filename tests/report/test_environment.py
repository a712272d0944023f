"""The environment section's commit: marked dirty for a changed source file, not for the
pipeline's own outputs, so rebuilding a report from the same results gives the same bytes."""

from __future__ import annotations

import subprocess

import pytest

from roundlab.report.environment import git_commit, processes_at_once


def _git(root, *args):
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    _git(tmp_path, "init", "-q")
    for path in (
        "src/model.py",
        "reports/headline.json",
        "reports/metrics/regression.json",
        "dvc.lock",
    ):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("v1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    return tmp_path


def test_a_rewritten_headline_json_metrics_or_dvc_lock_leaves_the_commit_unmarked(repo):
    for path in ("reports/headline.json", "reports/metrics/regression.json", "dvc.lock"):
        (repo / path).write_text("v2\n")
    assert git_commit(repo) == _git(repo, "rev-parse", "HEAD")


def test_a_changed_source_file_marks_the_commit(repo):
    (repo / "reports/headline.json").write_text("v2\n")
    (repo / "src/model.py").write_text("v2\n")
    assert git_commit(repo) == _git(repo, "rev-parse", "HEAD") + " + uncommitted changes"


def test_runs_at_once_are_processes_times_jobs_from_the_manifest(tmp_path):
    at_once = processes_at_once({"profile": "default", "jobs": 3, "processes": 2}, tmp_path)
    assert at_once == "6: processes 2 × jobs 3"


def test_a_manifest_without_processes_takes_them_from_the_profile(tmp_path):
    (tmp_path / "profiles.yaml").write_text("default:\n  processes: 2\nsmall: {}\n")
    assert processes_at_once({"profile": "default", "jobs": 1}, tmp_path) == (
        "2: processes 2 × jobs 1 (processes from profiles.yaml)"
    )
    assert processes_at_once({"profile": "small", "jobs": 1}, tmp_path) == (
        "1: processes 1 × jobs 1 (processes from profiles.yaml)"
    )
    assert processes_at_once({"profile": "gone", "jobs": 1}, tmp_path) is None
