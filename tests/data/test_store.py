"""The on-disk format: save/load round trip, and load refusing what it must not trust."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from roundlab.data import build as build_module
from roundlab.data import generate, load, materialize, save


@pytest.fixture
def stored(tmp_path, small_config):
    """data/affine/ of a small affine config under tmp_path; returns (config, directory)."""
    cfg = small_config("affine")
    return cfg, save(generate(cfg), tmp_path / "data" / "affine")


def test_load_returns_what_was_saved(stored):
    cfg, directory = stored
    original, loaded = generate(cfg), load(directory)
    assert loaded.meta == original.meta and loaded.name == "affine"
    for split in original.splits:
        assert np.array_equal(loaded.splits[split].x, original.splits[split].x)
        assert np.array_equal(loaded.splits[split].y, original.splits[split].y)
        assert loaded.splits[split].x.dtype == np.float32
        assert loaded.splits[split].y.dtype == np.int64


def test_load_by_name_looks_in_data_dir(stored):
    _, directory = stored
    assert load("affine", data_dir=directory.parent).meta == load(directory).meta


def test_saving_again_writes_identical_bytes_and_leaves_no_temporary_files(stored):
    cfg, directory = stored
    before = {f.name: f.read_bytes() for f in directory.iterdir()}
    save(generate(cfg), directory)
    assert {f.name: f.read_bytes() for f in directory.iterdir()} == before
    assert [p.name for p in directory.parent.iterdir()] == ["affine"]


def test_meta_json_records_what_the_format_promises(stored):
    _, directory = stored
    meta = json.loads((directory / "meta.json").read_text())
    assert meta["format_version"] == 4 and meta["generator"] == "affine" and meta["seed"] == 0
    assert meta["params"]["n_train"] == 80 and meta["n_features"] == 5
    assert meta["splits"]["train"]["n"] == 80
    assert (meta["resample"], meta["resamples"]) == (0, 1)  # one split set, stored flat
    assert meta["splits"]["train"]["label_range"] == list(load(directory).label_range("train"))
    assert set(meta["splits"]["val"]["x"]) == {"file", "sha256"}


def test_a_tampered_array_is_refused_by_its_hash(stored):
    _, directory = stored
    x = np.load(directory / "test_x.npy")
    x[0, 0] += 0.25
    np.save(directory / "test_x.npy", x)
    with pytest.raises(ValueError, match=r"test_x.npy must match the SHA-256.*dvc repro"):
        load(directory)


def test_a_non_integer_label_is_refused_naming_file_and_value(stored):
    _, directory = stored
    y = np.load(directory / "train_y.npy").astype(np.float64)
    y[3] = 2.5
    np.save(directory / "train_y.npy", y)
    with pytest.raises(
        ValueError, match=r"labels in .*train_y.npy must be integers.*2\.5 at row 3"
    ):
        load(directory)


def test_non_finite_features_are_refused(stored):
    _, directory = stored
    x = np.load(directory / "val_x.npy")
    x[2, 1] = np.nan
    np.save(directory / "val_x.npy", x)
    with pytest.raises(ValueError, match=r"features in .*val_x.npy must be finite.*row 2"):
        load(directory)


def test_features_of_the_wrong_width_are_refused(stored):
    _, directory = stored
    np.save(directory / "val_x.npy", np.load(directory / "val_x.npy")[:, :3])
    with pytest.raises(ValueError, match=r"val_x.npy must hold real features of shape \(n, 5\)"):
        load(directory)


def test_a_truncated_array_file_is_refused(stored):
    _, directory = stored
    file = directory / "train_x.npy"
    file.write_bytes(file.read_bytes()[:100])
    with pytest.raises(ValueError, match=r"train_x.npy must be a readable .npy array.*dvc repro"):
        load(directory)


def test_a_missing_array_file_says_how_to_regenerate(stored):
    _, directory = stored
    (directory / "extrapolate_y.npy").unlink()
    with pytest.raises(FileNotFoundError, match=r"extrapolate_y.npy is missing.*`dvc repro`"):
        load(directory)


def test_a_missing_dataset_says_how_to_regenerate(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"meta.json is missing.*roundlab.data affine"):
        load("affine", data_dir=tmp_path)


def test_a_corrupt_meta_json_is_refused(stored):
    _, directory = stored
    (directory / "meta.json").write_text("{not json")
    with pytest.raises(ValueError, match="meta.json must be valid JSON"):
        load(directory)


def test_another_format_version_is_refused(stored):
    _, directory = stored
    meta = json.loads((directory / "meta.json").read_text())
    meta["format_version"] = 0
    (directory / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="format_version 4. Received: format_version=0"):
        load(directory)


def test_materialize_loads_the_stored_data_when_the_config_matches(stored, monkeypatch):
    cfg, directory = stored

    def no_generation(_):
        raise AssertionError("materialize generated instead of loading")

    monkeypatch.setattr(build_module, "generate", no_generation)
    assert materialize(cfg, directory.parent).meta == load(directory).meta


def test_materialize_regenerates_data_stored_in_an_older_format(stored):
    cfg, directory = stored
    meta = json.loads((directory / "meta.json").read_text())
    del meta["oracle"]
    (directory / "meta.json").write_text(json.dumps({**meta, "format_version": 1}))
    dataset = materialize(cfg, directory.parent)
    assert dataset.meta == generate(cfg).meta and dataset.oracle["test"]["exact_match"] == 1.0


def test_materialize_generates_in_memory_without_writing_when_the_config_differs(
    stored, small_config
):
    _, directory = stored
    before = {f.name: f.read_bytes() for f in directory.iterdir()}
    smaller = small_config("affine", "n_train=20")
    dataset = materialize(smaller, directory.parent)
    assert len(dataset.train) == 20
    assert dataset.meta == generate(smaller).meta
    assert {f.name: f.read_bytes() for f in directory.iterdir()} == before


def test_materialize_generates_when_nothing_is_stored(tmp_path, small_config):
    cfg = small_config("count")
    data_dir = tmp_path / "data"
    assert materialize(cfg, data_dir).meta == generate(cfg).meta
    assert not data_dir.exists()


def test_materialize_refuses_corrupt_stored_data_instead_of_hiding_it(stored):
    cfg, directory = stored
    (directory / "val_y.npy").unlink()
    with pytest.raises(FileNotFoundError, match="val_y.npy is missing"):
        materialize(cfg, directory.parent)


def test_materialize_refuses_a_directory_whose_meta_json_is_gone(stored):
    cfg, directory = stored
    (directory / "meta.json").unlink()
    with pytest.raises(
        FileNotFoundError, match="affine is broken: it holds files but no meta.json"
    ):
        materialize(cfg, directory.parent)


def test_training_on_a_broken_data_directory_says_what_is_wrong_in_one_line(tmp_path):
    data = tmp_path / "data" / "count"
    data.mkdir(parents=True)
    (data / "train_x.npy").write_bytes(b"left over")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "roundlab.train",
            "dataset=count",
            "approach=regression",
            "tracking.enabled=false",
            f"results_dir={tmp_path / 'results'}",
            f"hydra.run.dir={tmp_path / 'run'}",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "ROUNDLAB_ROOT": str(tmp_path)},
        timeout=120,
    )
    assert out.returncode == 1
    assert "count is broken: it holds files but no meta.json" in out.stderr
    assert "python -m roundlab.data count" in out.stderr and "Traceback" not in out.stderr
