"""The csv generator with splits the user chose: one file per split or a split column; val
carved from train (stratified by label when it can be); every bad file refused naming the
file, the column, the line and the value; every input file's hash in meta.json."""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np
import pytest

from roundlab.data import compose_config, generate, materialize, save
from roundlab.data.splits import carve_val, resample_rng

from .support import CONF, write_csv


def csv_config(*overrides):
    return compose_config("csv", ["label=y", "standardize=false", *overrides], conf_dir=CONF)


def rows_of(n, start=0, label=lambda i: i % 4):
    """``n`` rows [a, b, y] with distinct features: a = start + i, b = (start + i) / 10."""
    return [[start + i, (start + i) / 10, label(i)] for i in range(n)]


def as_arrays(rows):
    table = np.asarray(rows, dtype=np.float64)
    return table[:, :2].astype(np.float32), table[:, 2].astype(np.int64)


@pytest.fixture
def split_files(tmp_path):
    """train (40 rows), val (10), test (12, columns in another order), extrapolate (5)."""
    rows = {
        "train": rows_of(40),
        "val": rows_of(10, 100),
        "test": rows_of(12, 200),
        "extrapolate": rows_of(5, 300, label=lambda i: 10 + i),
    }
    files = {
        "train": write_csv(tmp_path / "train.csv", ["a", "b", "y"], rows["train"]),
        "val": write_csv(tmp_path / "val.csv", ["a", "b", "y"], rows["val"]),
        "test": write_csv(tmp_path / "test.csv", ["y", "b", "a"], [r[::-1] for r in rows["test"]]),
        "extrapolate": write_csv(tmp_path / "extra.csv", ["a", "b", "y"], rows["extrapolate"]),
    }
    return files, rows


def path_overrides(files):
    return [f"{split}_path={file}" for split, file in files.items()]


def test_one_file_per_split_gives_exactly_those_rows_in_file_order(split_files):
    files, rows = split_files
    dataset = generate(csv_config(*path_overrides(files)))
    assert dataset.meta["feature_names"] == ["a", "b"]
    for split, expected in rows.items():
        x, y = as_arrays(expected)
        assert np.array_equal(dataset.splits[split].x, x), split
        assert np.array_equal(dataset.splits[split].y, y), split
    assert dataset.meta["provenance"] == {"layout": "files", "cut": None, "val_from_train": None}


def test_meta_records_the_sha256_of_every_input_file(split_files):
    files, _ = split_files
    dataset = generate(csv_config(*path_overrides(files)))
    assert dataset.meta["sources"] == {
        str(file): hashlib.sha256(file.read_bytes()).hexdigest() for file in files.values()
    }


def test_editing_one_input_file_changes_only_its_recorded_hash_and_the_data(tmp_path, split_files):
    files, _ = split_files
    cfg = csv_config(*path_overrides(files))
    save(generate(cfg), tmp_path / "data" / "csv")
    before = materialize(cfg, tmp_path / "data").meta["sources"]
    with files["test"].open("a") as handle:
        handle.write("2,0.5,999\n")
    changed = materialize(cfg, tmp_path / "data")
    after = changed.meta["sources"]
    assert [f for f in after if after[f] != before[f]] == [str(files["test"])]
    assert len(changed.test) == 13 and changed.test.y[-1] == 2


def test_a_split_column_puts_each_row_in_the_split_it_names(tmp_path):
    names = ["train"] * 30 + ["val"] * 6 + ["test"] * 8 + ["extrapolate"] * 4
    order = np.random.default_rng(3).permutation(len(names))
    rows = [[i, i / 10, names[k], i % 3] for i, k in enumerate(order)]
    file = write_csv(tmp_path / "all.csv", ["a", "b", "split", "y"], rows)
    dataset = generate(csv_config(f"path={file}", "split_column=split"))
    assert dataset.meta["feature_names"] == ["a", "b"]
    for split in ("train", "val", "test", "extrapolate"):
        x, y = as_arrays([[a, b, y] for a, b, s, y in rows if s == split])
        assert np.array_equal(dataset.splits[split].x, x), split
        assert np.array_equal(dataset.splits[split].y, y), split
    assert dataset.meta["provenance"] == {
        "layout": "split_column",
        "cut": None,
        "val_from_train": None,
    }
    assert dataset.meta["sources"] == {str(file): hashlib.sha256(file.read_bytes()).hexdigest()}


def test_val_is_carved_from_train_stratified_when_every_label_has_two_rows(tmp_path):
    labels = [0] * 20 + [1] * 10 + [2] * 4 + [3] * 2
    train = write_csv(
        tmp_path / "train.csv", ["a", "b", "y"], rows_of(36, label=labels.__getitem__)
    )
    test = write_csv(tmp_path / "test.csv", ["a", "b", "y"], rows_of(5, 100))
    dataset = generate(csv_config(f"train_path={train}", f"test_path={test}", "val_fraction=0.25"))
    # min(n_k - 1, floor(0.25 n_k + 0.5)) rows of each label k go to val
    assert Counter(dataset.val.y.tolist()) == {0: 5, 1: 3, 2: 1, 3: 1}
    assert Counter(dataset.train.y.tolist()) == {0: 15, 1: 7, 2: 3, 3: 1}
    together = np.concatenate([dataset.train.x, dataset.val.x])
    assert sorted(together[:, 0].tolist()) == list(range(36))
    assert np.all(np.diff(dataset.train.x[:, 0]) > 0)  # file order kept
    assert dataset.meta["provenance"] == {
        "layout": "files",
        "cut": None,
        "val_from_train": "stratified",
    }


def test_val_is_carved_at_random_when_a_label_has_a_single_row(tmp_path):
    labels = [0] * 20 + [1] * 19 + [7]
    rows = [[i, i / 10, "train", labels[i]] for i in range(40)]
    rows += [[100 + i, i, "test", 0] for i in range(5)]
    file = write_csv(tmp_path / "all.csv", ["a", "b", "split", "y"], rows)
    dataset = generate(csv_config(f"path={file}", "split_column=split", "val_fraction=0.25"))
    assert len(dataset.val) == 10 and len(dataset.train) == 30
    assert dataset.meta["provenance"] == {
        "layout": "split_column",
        "cut": None,
        "val_from_train": "random",
    }


def test_the_carved_val_rows_follow_the_seed(tmp_path):
    train = write_csv(tmp_path / "train.csv", ["a", "b", "y"], rows_of(60))
    test = write_csv(tmp_path / "test.csv", ["a", "b", "y"], rows_of(5, 100))
    picks = [
        generate(csv_config(f"train_path={train}", f"test_path={test}", f"seed={s}")).val.x
        for s in (0, 0, 1)
    ]
    assert picks[0].tobytes() == picks[1].tobytes() != picks[2].tobytes()


def test_carve_val_keeps_every_label_in_train_and_refuses_an_empty_val():
    y = np.array([0, 0, 1, 1, 1, 1, 1, 1, 1, 1])
    train, val, method = carve_val(resample_rng(0, 0), y, 0.5)
    assert method == "stratified"
    assert sorted(y[val].tolist()) == [0, 1, 1, 1, 1] and sorted(y[train].tolist()) == [
        0,
        1,
        1,
        1,
        1,
    ]
    with pytest.raises(ValueError, match=r"at least one row in each.*val_fraction=0.1.*val_rows=0"):
        carve_val(resample_rng(0, 0), np.array([0, 0, 1, 1]), 0.1)


@pytest.mark.parametrize(
    ("value", "line"),
    [("testing", 3), ("", 4), ("Train", 2)],
)
def test_an_unknown_split_name_is_refused_naming_the_file_line_and_value(tmp_path, value, line):
    rows = [[0.1, "train", 1], [0.2, "train", 2], [0.3, "test", 3]]
    rows[line - 2][1] = value
    file = write_csv(tmp_path / "all.csv", ["a", "split", "y"], rows)
    with pytest.raises(ValueError) as error:
        generate(csv_config(f"path={file}", "split_column=split"))
    message = str(error.value)
    for part in (str(file), "split column 'split'", f"value={value!r}", f"line={line}"):
        assert part in message


def test_a_split_column_without_test_rows_is_refused(tmp_path):
    file = write_csv(tmp_path / "all.csv", ["a", "split", "y"], [[i, "train", i] for i in range(5)])
    with pytest.raises(
        ValueError, match=r"at least one row for each of train and test.*\['test'\]"
    ):
        generate(csv_config(f"path={file}", "split_column=split"))


def test_an_absent_split_column_is_refused_naming_it(tmp_path):
    file = write_csv(tmp_path / "all.csv", ["a", "y"], [[i, i] for i in range(5)])
    with pytest.raises(ValueError, match=r"split_column must be one of the columns .*'part'"):
        generate(csv_config(f"path={file}", "split_column=part"))


def test_a_bad_value_in_the_test_file_is_refused_naming_that_file_column_and_line(split_files):
    files, _ = split_files
    lines = files["test"].read_text().splitlines()
    lines[5] = lines[5].replace(lines[5].split(",")[1], "NA", 1)
    files["test"].write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError) as error:
        generate(csv_config(*path_overrides(files)))
    message = str(error.value)
    for part in (str(files["test"]), "column 'b'", "must have a value", "value='NA'", "line=6"):
        assert part in message


def test_a_split_file_without_a_feature_column_of_train_is_refused(tmp_path, split_files):
    files, _ = split_files
    files["val"] = write_csv(tmp_path / "narrow.csv", ["a", "y"], [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match=r"features must be columns of .*narrow.csv.*\['b'\]"):
        generate(csv_config(*path_overrides(files)))


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        (["path=a.csv", "train_path=t.csv", "test_path=s.csv"], "not both.*path='a.csv'"),
        (["train_path=t.csv"], "at least train_path and test_path.*test_path=None"),
        (["test_path=t.csv", "val_path=v.csv"], "at least train_path and test_path"),
        (["path=a.csv", "split_column=y"], "split_column must name a column.*split_column='y'"),
    ],
)
def test_inconsistent_layouts_are_refused_when_checked(overrides, expected):
    with pytest.raises(ValueError, match=expected):
        generate(csv_config(*overrides))
