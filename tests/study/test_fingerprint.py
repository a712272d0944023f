"""Editing the study's code retrains nothing: the study only starts the pipeline's commands, so
its files are no part of a run's code hash (a change to the data code still is)."""

from __future__ import annotations

import shutil

from roundlab.run import fingerprint


def test_the_study_s_code_is_no_part_of_the_code_hash_but_data_code_is(tmp_path, monkeypatch):
    package = tmp_path / "roundlab"
    shutil.copytree(fingerprint.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint, "PACKAGE_DIR", package)
    code_hash = fingerprint.code_hash.__wrapped__
    before = code_hash()
    with (package / "study" / "cli.py").open("a") as handle:
        handle.write("# edited\n")
    assert code_hash() == before
    with (package / "data" / "csv_table.py").open("a") as handle:
        handle.write("# edited\n")
    assert code_hash() != before
