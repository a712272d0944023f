"""The csv generator: a user's file gives the same splits and format, and every bad file is
refused with a message naming the file, the column, the line and the value."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab.data import compose_config, generate, materialize, save

from .support import CONF, write_csv


def csv_config(path, *overrides):
    return compose_config("csv", [f"path={path}", "label=y", *overrides], conf_dir=CONF)


def test_csv_rows_become_the_splits_with_every_other_column_as_feature(example_csv):
    dataset = generate(csv_config(example_csv))
    assert dataset.meta["feature_names"] == ["x1", "x2", "const"]
    assert sum(len(split) for split in dataset.splits.values()) == 200
    assert dataset.meta["sources"][str(example_csv)]  # the file's SHA-256


def test_csv_features_option_selects_the_columns(example_csv):
    dataset = generate(csv_config(example_csv, "features=[x2,x1]", "standardize=false"))
    assert dataset.meta["feature_names"] == ["x2", "x1"]
    first = example_csv.read_text().splitlines()[1:]
    table = np.array([line.split(",") for line in first], dtype=np.float64)
    stored = np.concatenate([split.x for split in dataset.splits.values()])
    assert {tuple(row) for row in stored} == {
        tuple(row) for row in table[:, [1, 0]].astype(np.float32)
    }


def test_csv_accepts_integer_labels_written_as_floats(tmp_path):
    file = write_csv(tmp_path / "f.csv", ["a", "y"], [[i * 0.5, f"{i % 7}.0"] for i in range(60)])
    labels = np.concatenate([s.y for s in generate(csv_config(file)).splits.values()])
    assert sorted(set(labels.tolist())) == list(range(7))


def test_relative_csv_path_is_taken_from_the_project_root(tmp_path, monkeypatch):
    write_csv(tmp_path / "mine.csv", ["a", "y"], [[i, i % 5] for i in range(40)])
    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    monkeypatch.chdir(CONF)  # anywhere but the root
    assert generate(csv_config("mine.csv")).meta["sources"] == {
        "mine.csv": generate(csv_config(tmp_path / "mine.csv")).meta["sources"][
            str(tmp_path / "mine.csv")
        ]
    }


GOOD = ["x1,x2,y", "0.1,0.2,1", "0.3,0.4,2", "0.5,0.6,3", "0.7,0.8,4"]


@pytest.mark.parametrize(
    ("line", "text", "expected"),
    [
        (2, "0.1,0.2,2.5", ["label column 'y'", "must hold integers", "value='2.5'", "line=2"]),
        (3, "0.3,0.4,", ["column 'y'", "must have a value", "value=''", "line=3"]),
        (4, "0.5,NA,3", ["column 'x2'", "must have a value", "value='NA'", "line=4"]),
        (5, "abc,0.8,4", ["feature column 'x1'", "finite numbers", "value='abc'", "line=5"]),
        (5, "inf,0.8,4", ["feature column 'x1'", "finite numbers", "value='inf'", "line=5"]),
        (3, "0.3,0.4", ["must have 3 fields", "line=3", "fields=2"]),
    ],
)
def test_bad_csv_values_are_refused_naming_file_column_line_and_value(
    tmp_path, line, text, expected
):
    lines = list(GOOD)
    lines[line - 1] = text
    file = tmp_path / "bad.csv"
    file.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError) as error:
        generate(csv_config(file))
    message = str(error.value)
    assert str(file) in message
    for part in expected:
        assert part in message


def test_a_label_column_absent_from_the_csv_is_refused(example_csv):
    with pytest.raises(ValueError, match=r"label must be one of the columns .*label='count'"):
        generate(compose_config("csv", [f"path={example_csv}", "label=count"], conf_dir=CONF))


def test_a_feature_column_absent_from_the_csv_is_refused(example_csv):
    with pytest.raises(ValueError, match=r"features must be columns .*features=\['x9'\]"):
        generate(csv_config(example_csv, "features=[x1,x9]"))


def test_a_missing_csv_file_is_refused_naming_the_path(tmp_path):
    with pytest.raises(ValueError, match="path must name an existing CSV file.*nowhere.csv"):
        generate(csv_config(tmp_path / "nowhere.csv"))


def test_a_missing_split_file_is_refused_naming_its_key(tmp_path, example_csv):
    absent = tmp_path / "absent.csv"
    with pytest.raises(
        ValueError,
        match=rf"^test_path must name an existing CSV file\. Received: test_path='{absent}'",
    ):
        generate(
            compose_config(
                "csv",
                [f"train_path={example_csv}", f"test_path={absent}", "label=y"],
                conf_dir=CONF,
            )
        )


def test_the_csv_config_without_label_asks_for_it():
    with pytest.raises(ValueError, match=r"missing=\['label'\]"):
        generate(compose_config("csv", conf_dir=CONF))


def test_the_csv_config_without_any_file_asks_for_one():
    with pytest.raises(ValueError, match=r"path must name a CSV file .*train_path.*path=None"):
        generate(compose_config("csv", ["label=y"], conf_dir=CONF))


def test_materialize_regenerates_when_the_csv_file_changes(tmp_path, example_csv):
    cfg = csv_config(example_csv)
    save(generate(cfg), tmp_path / "data" / "csv")
    assert materialize(cfg, tmp_path / "data").meta == generate(cfg).meta
    with example_csv.open("a") as handle:
        handle.write("0.5,0.5,1.0,7\n")
    changed = materialize(cfg, tmp_path / "data")
    assert sum(len(split) for split in changed.splits.values()) == 201


def rating_csv(tmp_path):
    """120 rows of a 1..5 rating whose extreme label 1 is rare (3 rows) and 5 is common."""
    counts = {1: 3, 2: 12, 3: 30, 4: 40, 5: 35}
    labels = [label for label, n in counts.items() for _ in range(n)]
    rows = [[i / 7, (i * 37 % 101) / 10, label] for i, label in enumerate(labels)]
    return write_csv(tmp_path / "ratings.csv", ["a", "b", "y"], rows)


def test_rare_extreme_labels_stay_in_train_by_default(tmp_path):
    dataset = generate(csv_config(rating_csv(tmp_path)))
    assert dataset.extrapolate is None and "extrapolate" not in dataset.meta["splits"]
    assert int(np.sum(dataset.train.y == 1)) == 3  # every label-1 row is a training row
    assert dataset.label_range("train") == (1, 5)


def test_extrapolate_split_is_opt_in_and_takes_the_label_tails(tmp_path):
    dataset = generate(csv_config(rating_csv(tmp_path), "extrapolate_quantile=0.05"))
    assert sorted(set(dataset.extrapolate.y.tolist())) == [1]  # the 6 lowest labels: 3 ones
    assert dataset.label_range("train")[0] == 2


def test_a_dataset_lists_each_splits_distinct_labels_sorted(tmp_path):
    dataset = generate(csv_config(rating_csv(tmp_path), "extrapolate_quantile=0.05"))
    assert dataset.labels() == {
        "train": [2, 3, 4, 5],
        "val": [2, 3, 4, 5],
        "test": [2, 3, 4, 5],
        "extrapolate": [1],
    }
