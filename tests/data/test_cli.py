"""``python -m roundlab.data <name>``: the command of the DVC generate stage."""

from __future__ import annotations

import pytest

from roundlab.data import load
from roundlab.data.__main__ import main

from .support import REPO, SMALL_SIZES


@pytest.fixture(autouse=True)
def at_repo_root(monkeypatch):
    monkeypatch.delenv("ROUNDLAB_ROOT", raising=False)
    monkeypatch.chdir(REPO)


def test_cli_writes_the_dataset_it_reports(tmp_path, capsys):
    assert main(["count", *SMALL_SIZES, "--data-dir", str(tmp_path)]) == 0
    dataset = load("count", data_dir=tmp_path)
    assert len(dataset.train) == 80 and dataset.meta["params"]["n_train"] == 80
    assert "count: train 80, val 30, test 30, extrapolate 30 rows; 6 features" in (
        capsys.readouterr().out
    )


def test_cli_reports_an_impossible_parameter_and_writes_nothing(tmp_path, capsys):
    assert main(["affine", "n_val=0", "--data-dir", str(tmp_path)]) == 1
    assert "n_val must be a positive integer. Received: n_val=0" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_cli_reports_an_unknown_dataset_listing_the_known_ones(tmp_path, capsys):
    assert main(["mnist", "--data-dir", str(tmp_path)]) == 1
    assert "Known: ['affine'" in capsys.readouterr().err
