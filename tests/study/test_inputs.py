"""The study's data as a params.yaml entry by value: integral floats (as pandas writes them) are
integer labels, and the entry composes into the CSV config the pipeline's generate stage reads."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from roundlab.data import entries
from roundlab.study import directory
from roundlab.study.inputs import StudyInput, check, parse_features


def test_integral_float_labels_are_integers(tmp_path):
    data = tmp_path / "d.csv"
    rows = [f"{i / 10},{float(1 + i % 3)}" for i in range(30)]
    data.write_text("x,y\n" + "\n".join(rows) + "\n")
    _, dataset = check("d", StudyInput(data, "y"))
    labels = np.concatenate([part.y for part in dataset.splits.values()])
    assert labels.dtype == np.int64
    assert sorted(set(labels.tolist())) == [1, 2, 3]
    assert len(labels) == 30


def test_the_entry_names_the_files_absolutely_and_the_options(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    given = StudyInput(Path("d.csv"), "y", parse_features(" a, b "), Path("t.csv"), None, 3)
    assert given.keys() == {
        "config": "csv",  # also for a file named like a built-in dataset
        "train_path": str(tmp_path / "d.csv"),
        "test_path": str(tmp_path / "t.csv"),
        "label": "y",
        "features": ["a", "b"],
        "resamples": 3,
    }


def test_the_written_params_file_parses_as_the_pipeline_reads_it(tmp_path):
    given = StudyInput(tmp_path / "d.csv", "y", None, None, "part")
    entry = entries.parse({"d": given.keys()})["d"]
    params = directory.write(tmp_path, given.keys(), entry, "quick", {"seeds": [0]})
    assert entries.load(params) == {"d": entry}
    assert entry.config == "csv"
    assert yaml.safe_load(params.read_text())["profile"] == "quick"
    assert yaml.safe_load((tmp_path / "profiles.yaml").read_text()) == {"quick": {"seeds": [0]}}
