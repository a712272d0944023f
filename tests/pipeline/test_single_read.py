"""A sweep reads each result file once (:mod:`roundlab.sweep.result_reads`): resume, the rate
extensions and the final tally share the read while the file is unchanged; a file written
again is read again, and an edited one is refused every time. The data hash is computed once
per dataset config while its files are unchanged (:func:`roundlab.run.fingerprint.data_hash`)."""

from __future__ import annotations

import json
import os

import pytest

from roundlab import results
from roundlab.run import fingerprint
from roundlab.run.config import compose
from roundlab.runs import RunKey
from roundlab.sweep import extend, progress, result_reads, resume


def _write(path, seed: int, exact: float) -> None:
    result = results.RunResult(
        status=results.FINISHED,
        dataset="count",
        approach="regression",
        seed=seed,
        config={"trainer": {"learning_rate": 0.01}},
        metrics={"val": {"exact_match": exact, "mae": 1.0}},
        fingerprint="f",
        history={"loss": [2.0, 1.0], "val_mae": [1.5, 1.0]},
    )
    results.write(result, path)


def test_resume_extensions_and_tally_read_a_file_once_until_it_is_written_again(
    tmp_path, monkeypatch
):
    key = RunKey.of("count", "regression", None, {}, 0, 0.01)
    path = key.result_path(tmp_path)
    path.parent.mkdir(parents=True)
    _write(path, 0, 0.5)
    reads = []
    real = results.read
    monkeypatch.setattr(results, "read", lambda p: reads.append(p) or real(p))

    assert resume.kept(path, lambda: "f").metrics["val"]["exact_match"] == 0.5
    assert extend._trials([key], tmp_path) is not None
    assert progress.result_tally([path]).done == 1
    assert len(reads) == 1
    # what is kept holds no history (most of a file's memory); the file has it
    assert result_reads.read(path).history == {}
    assert real(path).history["loss"] == [2.0, 1.0]

    _write(path, 0, 0.75)  # written again: a new file renamed into place
    assert resume.kept(path, lambda: "f").metrics["val"]["exact_match"] == 0.75
    assert len(reads) == 2

    document = json.loads(path.read_text())
    document["metrics"]["val"]["exact_match"] = 0.99  # edited in place, same size
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n")
    # an edit comes later than the write: a coarse clock (NFS, kernels before 6.13) would
    # otherwise give both the same mtime within this millisecond
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**6))
    for _ in range(2):
        with pytest.raises(results.UnreadableResult):
            result_reads.read(path)
    assert resume.kept(path, lambda: "f") is None


def test_the_data_hash_is_computed_once_per_dataset_config_until_its_meta_changes(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    (tmp_path / "dvc.yaml").write_text("stages: {}\n")
    computed = []
    real = fingerprint._data_hash
    monkeypatch.setattr(fingerprint, "_data_hash", lambda c: computed.append(c) or real(c))
    dataset = compose(["dataset=count", "dataset.n_train=300"]).dataset
    first = fingerprint.data_hash(dataset)
    assert fingerprint.data_hash(compose(["dataset=count", "dataset.n_train=300"]).dataset) == first
    assert len(computed) == 1
    other = fingerprint.data_hash(compose(["dataset=count", "dataset.n_train=301"]).dataset)
    assert other != first and len(computed) == 2

    meta = tmp_path / "data" / "count" / "meta.json"
    meta.parent.mkdir(parents=True)
    meta.write_text("{}")  # data written meanwhile: hashed again (and found not this config's)
    os.utime(meta, ns=(1, 1))
    assert fingerprint.data_hash(dataset) == first
    assert len(computed) == 3
