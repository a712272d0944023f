"""The result file: versions it reads, the fields it keeps, and the digest that refuses a file
edited since it was written."""

import hashlib
import json
import math

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
    with pytest.raises(ValueError, match=r"format_version must be one of \(1, 2, 3, 4, 5\)"):
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
    assert json.loads(path.read_text())["format_version"] == 5
    assert results.read(path).oracle == oracle


def _finished(**extra) -> results.RunResult:
    return results.RunResult(
        **OLD,
        metrics={"val": {"exact_match": 0.5}, "test": {"exact_match": 0.41, "mae": 0.7}},
        history={"loss": [1.0, 0.5], "val_exact_match": [0.3, 0.5]},
        **extra,
    )


def _edit(path, change) -> None:
    """Change the parsed file with ``change`` and write it back, its digest untouched, as an
    editor would."""
    document = json.loads(path.read_text())
    change(document)
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")


def test_a_written_file_carries_the_sha256_of_every_other_field(tmp_path):
    result = _finished()
    path = results.write(result, tmp_path / "seed=2.json")
    document = json.loads(path.read_text())
    body = {k: v for k, v in document.items() if k != "digest"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    assert document["digest"] == hashlib.sha256(canonical.encode()).hexdigest()
    assert {"metrics", "history", "config", "status", "fingerprint"} <= set(body)
    assert result.digest == document["digest"] == results.read(path).digest


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["metrics"]["test"].update(exact_match=0.999),
        lambda d: d["history"]["loss"].pop(),
        lambda d: d.update(status="FAILED"),
        lambda d: d.update(fingerprint="0" * 64),
        lambda d: d.update(note="added by hand"),
    ],
    ids=["test-exact-match", "history", "status", "fingerprint", "added-key"],
)
def test_a_file_edited_after_it_was_written_is_refused_naming_it(tmp_path, change):
    path = results.write(_finished(), tmp_path / "seed=2.json")
    _edit(path, change)
    with pytest.raises(results.UnreadableResult, match="its digest says it was edited") as err:
        results.read(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_reformatting_a_file_keeps_its_digest(tmp_path):
    # the digest is of the content, not of the bytes: indentation and key order do not count
    path = results.write(_finished(), tmp_path / "seed=2.json")
    document = json.loads(path.read_text())
    path.write_text(json.dumps(dict(reversed(list(document.items())))))
    assert results.read(path).metrics["test"]["exact_match"] == 0.41


def test_a_version_4_file_without_its_digest_is_refused(tmp_path):
    path = results.write(_finished(), tmp_path / "seed=2.json")
    _edit(path, lambda d: d.pop("digest"))
    with pytest.raises(results.UnreadableResult, match="digest=None"):
        results.read(path)


def test_a_file_older_than_digests_reads_without_one(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({**OLD, "format_version": 3, "metrics": {"val": {"mae": 1.0}}}))
    read = results.read(path)
    assert read.digest is None and read.metrics == {"val": {"mae": 1.0}}


def test_a_diverged_metric_written_as_null_keeps_a_matching_digest(tmp_path):
    result = _finished(baseline={"val": {"mae": math.nan}})
    path = results.write(result, tmp_path / "seed=2.json")
    assert results.read(path).baseline == {"val": {"mae": None}}


def test_the_labels_of_each_split_survive_a_write_and_read(tmp_path):
    labels = {"train": [1, 2, 3, 4, 5], "val": [2, 3, 4], "test": [1, 3, 5, 6]}
    path = results.write(results.RunResult(**OLD, labels=labels), tmp_path / "seed=2.json")
    assert json.loads(path.read_text())["labels"] == labels
    assert results.read(path).labels == labels


def test_a_format_4_file_without_labels_reads_with_none_and_its_digest_holds(tmp_path):
    document = {**OLD, "format_version": 4, "metrics": {"test": {"mae": 0.5}}}
    document["digest"] = results.content_digest(document)
    path = tmp_path / "seed=2.json"
    path.write_text(json.dumps(document))
    read = results.read(path)
    assert read.labels == {} and read.metrics == {"test": {"mae": 0.5}}
