"""The result file: versions it reads."""

import json

import pytest

from roundlab import results
from roundlab.runs import RunKey


def test_result_files_of_the_previous_format_still_read(tmp_path):
    old = {"status": "FINISHED", "dataset": "count", "approach": "regression", "seed": 2}
    path = tmp_path / "old.json"
    path.write_text(json.dumps({**old, "format_version": 1}))
    read = results.read(path)
    assert read.key == RunKey.of("count", "regression", seed=2) and read.best_epoch is None
    path.write_text(json.dumps({**old, "format_version": 9}))
    with pytest.raises(ValueError, match=r"format_version must be one of \(1, 2\)"):
        results.read(path)
