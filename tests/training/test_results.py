"""The result file: versions it reads, and the fields it keeps."""

import json

import pytest

from roundlab import results
from roundlab.runs import RunKey

OLD = {"status": "FINISHED", "dataset": "count", "approach": "regression", "seed": 2}


def test_result_files_of_the_previous_format_still_read(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({**OLD, "format_version": 1}))
    read = results.read(path)
    assert read.key == RunKey.of("count", "regression", seed=2) and read.best_epoch is None
    path.write_text(json.dumps({**OLD, "format_version": 9}))
    with pytest.raises(ValueError, match=r"format_version must be one of \(1, 2, 3\)"):
        results.read(path)


def test_a_format_2_file_reads_with_an_empty_oracle(tmp_path):
    path = tmp_path / "v2.json"
    path.write_text(json.dumps({**OLD, "format_version": 2, "best_epoch": 7, "converged": True}))
    read = results.read(path)
    assert read.oracle == {} and read.best_epoch == 7 and read.converged is True


def test_the_oracle_survives_a_write_and_read(tmp_path):
    oracle = {"test": {"exact_match": 0.25666666666666665, "mae": 1.3966666666666667}}
    result = results.RunResult(**OLD, oracle=oracle)
    path = results.write(result, tmp_path / "run.json")
    assert json.loads(path.read_text())["format_version"] == 3
    assert results.read(path).oracle == oracle
