"""`dvc repro` and `dvc status` of the generate stage in a fresh clone of the committed
repository."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import clones
from roundlab.data import compose_config, generate, load

from .support import BUILTIN, BUNDLED, write_csv


def run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = clones.run(args, cwd, env)
    return done.stdout + done.stderr


@pytest.mark.slow
def test_dvc_repro_generates_each_dataset_once_and_reruns_only_what_changed(tmp_path):
    clone, env = clones.fresh_clone(tmp_path)
    dvc = [str(clones.BIN / "dvc"), "repro", "generate"]

    first = run(dvc, clone, env)
    for name in [*BUILTIN, *BUNDLED]:
        assert f"Running stage 'generate@{name}'" in first
        stored = load(clone / "data" / name)
        # A separate process wrote the same bytes as this one generates.
        fresh = generate(compose_config(name, conf_dir=clone / "conf"))
        assert stored.meta["splits"] == fresh.meta["splits"]

    second = run(dvc, clone, env)
    assert "Running stage" not in second
    assert "Data and pipelines are up to date" in second

    config = clone / "conf" / "dataset" / "count.yaml"
    config.write_text(config.read_text().replace("seed: 0", "seed: 1"))
    third = run(dvc, clone, env)
    assert "Running stage 'generate@count'" in third
    assert third.count("Running stage") == 1
    assert load(clone / "data" / "count").meta["seed"] == 1


@pytest.mark.slow
def test_dvc_status_sees_an_edited_input_file_of_a_csv_dataset(tmp_path):
    clone, env = clones.fresh_clone(tmp_path)
    dvc = str(clones.BIN / "dvc")
    (clone / "inputs" / "mine").mkdir()
    for split, start in (("train", 0), ("test", 100)):
        rows = [[start + i, i % 3] for i in range(30)]
        write_csv(clone / "inputs" / "mine" / f"{split}.csv", ["x", "y"], rows)
    csv_conf = (clone / "conf" / "dataset" / "csv.yaml").read_text()
    (clone / "conf" / "dataset" / "mine.yaml").write_text(
        csv_conf.replace("name: csv", "name: mine")
        .replace("train_path: null", "train_path: inputs/mine/train.csv")
        .replace("test_path: null", "test_path: inputs/mine/test.csv")
        .replace("label: ???", "label: y")
    )
    params = clone / "params.yaml"
    values = yaml.safe_load(params.read_text())
    params.write_text(yaml.safe_dump({**values, "datasets": [*values["datasets"], "mine"]}))

    assert "Running stage 'generate@mine'" in run([dvc, "repro", "generate@mine"], clone, env)
    assert "up to date" in run([dvc, "status", "generate@mine"], clone, env)
    recorded = load(clone / "data" / "mine").meta["sources"]

    with (clone / "inputs" / "mine" / "test.csv").open("a") as handle:
        handle.write("200,1\n")
    status = run([dvc, "status", "generate@mine"], clone, env)
    assert "changed deps" in status and "modified:" in status and "inputs" in status
    run([dvc, "repro", "generate@mine"], clone, env)
    stored = load(clone / "data" / "mine")
    assert len(stored.test) == 31
    assert stored.meta["sources"]["inputs/mine/train.csv"] == recorded["inputs/mine/train.csv"]
    assert stored.meta["sources"]["inputs/mine/test.csv"] != recorded["inputs/mine/test.csv"]
