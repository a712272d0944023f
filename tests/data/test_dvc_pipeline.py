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
    names = list(yaml.safe_load((clone / "params.yaml").read_text())["datasets"])
    assert set(names) <= {*BUILTIN, *BUNDLED}

    first = run(dvc, clone, env)
    for name in names:
        assert f"Running stage 'generate@{name}'" in first
        stored = load(clone / "data" / name)
        # A separate process wrote the same bytes as this one generates.
        fresh = generate(compose_config(name, conf_dir=clone / "src" / "roundlab" / "conf"))
        assert stored.meta["splits"] == fresh.meta["splits"]

    second = run(dvc, clone, env)
    assert "Running stage" not in second
    assert "Data and pipelines are up to date" in second

    params = clone / "params.yaml"
    params.write_text(params.read_text().replace("  count: {}", "  count: {seed: 1}"))
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
    params = clone / "params.yaml"
    params.write_text(
        params.read_text()
        + "  mine: {train_path: inputs/mine/train.csv, test_path: inputs/mine/test.csv, "
        "label: y}\n"
    )

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
