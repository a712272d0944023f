"""Where a study goes without --out: studies/<name>/ under the roundlab checkout it runs in,
else under the current directory (a user's own project is not taken for roundlab's)."""

from __future__ import annotations

from pathlib import Path

from roundlab.study import directory


def test_inside_the_checkout_a_study_goes_under_its_root(monkeypatch):
    monkeypatch.delenv("ROUNDLAB_ROOT", raising=False)
    root = Path(__file__).resolve().parents[2]  # the checkout the tests run in
    assert directory.default_out("fair", root / "src") == root / "studies" / "fair"


def test_outside_a_checkout_a_study_goes_under_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("ROUNDLAB_ROOT", raising=False)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "mine"\n')
    here = tmp_path / "work"
    here.mkdir()
    assert directory.default_out("fair", here) == here / "studies" / "fair"


def test_roundlab_root_decides_when_set(tmp_path, monkeypatch):
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    assert directory.default_out("fair", tmp_path / "x") == tmp_path / "studies" / "fair"
