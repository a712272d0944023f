"""A CSV dataset's resamples: R stratified cuts of one file, or R given partition files; every
resample stored in data/<name>/resample=<r>/, byte for byte the same each time, and the one a
run picks loaded back."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from roundlab.data import (
    compose_config,
    generate,
    generate_all,
    load,
    materialize,
    read_config,
    resample_count,
    save,
    stored_meta,
)
from roundlab.data.__main__ import main

from .support import CONF, write_csv

# 150 rows of a 1..5 rating: label 1 rare (3 rows), the others 30 or more.
COUNTS = {1: 3, 2: 30, 3: 45, 4: 40, 5: 32}


def rating_rows():
    labels = [label for label, n in COUNTS.items() for _ in range(n)]
    return [[i / 7, (i * 37 % 101) / 10, label] for i, label in enumerate(labels)]


@pytest.fixture
def ratings(tmp_path):
    return write_csv(tmp_path / "ratings.csv", ["a", "b", "y"], rating_rows())


def cut(file, *overrides):
    return compose_config(
        "csv", [f"path={file}", "label=y", "standardize=false", *overrides], conf_dir=CONF
    )


def fingerprint(dataset):
    return {split: entry["x"]["sha256"] for split, entry in dataset.meta["splits"].items()}


def test_stratified_resamples_are_deterministic_and_differ_across_resamples(ratings):
    first = [fingerprint(d) for d in generate_all(cut(ratings, "resamples=3"))]
    again = [fingerprint(generate(cut(ratings, "resamples=3", f"resample={r}"))) for r in range(3)]
    assert first == again
    assert len({json.dumps(f, sort_keys=True) for f in first}) == 3


def test_every_resample_keeps_each_labels_share_and_the_rare_label_in_train(ratings):
    for dataset in generate_all(cut(ratings, "resamples=4")):
        assert dataset.extrapolate is None
        # per label: floor(0.15 n + 0.5) to test and to val, the rest (label 1: 3 rows) train
        share = {1: 0, 2: 5, 3: 7, 4: 6, 5: 5}
        assert Counter(dataset.test.y.tolist()) == {k: v for k, v in share.items() if v}
        assert Counter(dataset.val.y.tolist()) == {k: v for k, v in share.items() if v}
        assert Counter(dataset.train.y.tolist()) == {k: COUNTS[k] - 2 * share[k] for k in COUNTS}
        assert dataset.meta["provenance"]["cut"] == "stratified"


def test_a_cut_where_every_label_is_too_rare_for_a_share_is_random(tmp_path):
    # 40 labels of 2 rows: 0.15 * 2 rounds to 0 for each, so stratifying leaves test empty
    rows = [[i, i / 3, i // 2] for i in range(80)]
    dataset = generate(cut(write_csv(tmp_path / "thin.csv", ["a", "b", "y"], rows)))
    assert dataset.meta["provenance"]["cut"] == "random"
    assert (len(dataset.val), len(dataset.test)) == (12, 12)


def partitions(tmp_path):
    """The 150 rows cut into train_0..2.csv (120 rows) and test_0..2.csv (30 rows)."""
    rows = rating_rows()
    order = np.random.default_rng(3).permutation(len(rows))
    for r in range(3):
        test = set(order[30 * r : 30 * (r + 1)].tolist())
        write_csv(
            tmp_path / f"train_{r}.csv",
            ["a", "b", "y"],
            [row for i, row in enumerate(rows) if i not in test],
        )
        write_csv(tmp_path / f"test_{r}.csv", ["a", "b", "y"], [rows[i] for i in sorted(test)])
    return [
        f"train_path='{tmp_path}/train_{{resample}}.csv'",
        f"test_path='{tmp_path}/test_{{resample}}.csv'",
        "label=y",
        "standardize=false",
    ]


def test_partition_files_named_by_a_pattern_load_as_resamples(tmp_path):
    cfg = compose_config("csv", partitions(tmp_path), conf_dir=CONF)
    assert resample_count(cfg) == 3
    datasets = generate_all(cfg)
    for r, dataset in enumerate(datasets):
        text = (tmp_path / f"test_{r}.csv").read_text().splitlines()[1:]
        expected = np.array([line.split(",") for line in text], dtype=np.float64)
        assert np.array_equal(dataset.test.x, expected[:, :2].astype(np.float32))
        assert np.array_equal(dataset.test.y, expected[:, 2].astype(np.int64))
        assert len(dataset.train) + len(dataset.val) == 120
        assert (dataset.meta["resample"], dataset.meta["resamples"]) == (r, 3)
    # the sources cover every partition of every resample
    assert sorted(datasets[0].meta["sources"]) == sorted(
        f"{tmp_path}/{split}_{r}.csv" for split in ("train", "test") for r in range(3)
    )


def test_a_missing_partition_file_is_refused_in_one_line_naming_it(tmp_path):
    overrides = partitions(tmp_path)
    (tmp_path / "test_1.csv").unlink()
    with pytest.raises(ValueError) as error:
        generate(compose_config("csv", overrides, conf_dir=CONF))
    message = str(error.value)
    assert "\n" not in message
    assert f"missing='{tmp_path}/test_1.csv'" in message and "0..2" in message


def test_a_resample_the_dataset_does_not_have_is_refused(ratings, tmp_path):
    with pytest.raises(ValueError, match=r"resample must name one of the resamples 0\.\.2"):
        generate(cut(ratings, "resamples=3", "resample=3"))
    with pytest.raises(ValueError, match=r"one of the 3 resamples .*Received: resample=5"):
        generate(compose_config("csv", [*partitions(tmp_path), "resample=5"], conf_dir=CONF))


def test_resamples_apply_to_one_file_cut_at_random(ratings):
    with pytest.raises(ValueError, match=r"resamples applies to one file split at random"):
        generate(cut(ratings, "split_column=b", "resamples=2"))


def test_every_resample_is_stored_in_its_directory_byte_for_byte_the_same(ratings, tmp_path):
    cfg = cut(ratings, "resamples=3")
    first = save(generate_all(cfg), tmp_path / "one" / "csv")
    second = save(generate_all(cfg), tmp_path / "two" / "csv")
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert [f.as_posix() for f in files if f.name == "meta.json"] == [
        "meta.json",
        "resample=0/meta.json",
        "resample=1/meta.json",
        "resample=2/meta.json",
    ]
    assert len(files) == 1 + 3 * 7  # top meta; per resample meta and train/val/test x and y
    for file in files:
        assert (first / file).read_bytes() == (second / file).read_bytes(), file
    top = json.loads((first / "meta.json").read_text())
    assert top["resamples"] == 3 and "resample" not in top["params"]
    for r in range(3):
        stored = load(first, resample=r)
        assert fingerprint(stored) == fingerprint(
            generate(cut(ratings, "resamples=3", f"resample={r}"))
        )
        # what a run of resample r reads is the stored resample r
        picked = materialize(cut(ratings, "resamples=3", f"resample={r}"), tmp_path / "one")
        assert np.array_equal(picked.test.y, stored.test.y) and picked.meta["resample"] == r


def test_a_resamples_meta_edited_after_it_was_written_is_refused(ratings, tmp_path):
    directory = save(generate_all(cut(ratings, "resamples=2")), tmp_path / "csv")
    meta = directory / "resample=1" / "meta.json"
    meta.write_text(meta.read_text().replace('"resample": 1', '"resample": 1 '))
    with pytest.raises(ValueError, match="must match the SHA-256 recorded in"):
        load(directory, resample=1)
    assert load(directory, resample=0).meta["resample"] == 0


def test_the_data_command_writes_every_resample(ratings, tmp_path, capsys):
    args = ["csv", f"path={ratings}", "label=y", "resamples=2", "--data-dir", str(tmp_path)]
    assert main(args) == 0
    assert "2 resamples" in capsys.readouterr().out
    assert json.loads((tmp_path / "csv" / "meta.json").read_text())["resamples"] == 2
    assert (tmp_path / "csv" / "resample=1" / "train_y.npy").is_file()


def test_the_number_of_resamples_is_read_from_the_config_file_without_hydra(ratings, tmp_path):
    conf = tmp_path / "conf" / "dataset"
    conf.mkdir(parents=True)
    text = (CONF / "dataset" / "csv.yaml").read_text().replace("name: csv", "name: mine")
    (conf / "mine.yaml").write_text(text.replace("resamples: 1", "resamples: 5"))
    overrides = [f"path={ratings}", "label=y"]
    assert resample_count(read_config("mine", overrides, conf_dir=tmp_path / "conf")) == 5
    assert resample_count(read_config("anes96")) == 1


def test_a_runs_data_fingerprint_is_its_own_resamples_stored_files(ratings, tmp_path, monkeypatch):
    from roundlab.run.fingerprint import data_hash

    monkeypatch.setenv("ROUNDLAB_ROOT", str(tmp_path))
    configs = [cut(ratings, "resamples=2", f"resample={r}") for r in range(2)]
    in_memory = [data_hash(c) for c in configs]
    save(generate_all(configs[0]), tmp_path / "data" / "csv")
    stored = [data_hash(c) for c in configs]
    assert len(set(in_memory + stored)) == 4  # per resample, stored differs from generated
    metas = [stored_meta(c, tmp_path / "data") for c in configs]
    assert [meta["resample"] for meta in metas] == [0, 1]
