"""`dvc repro` and `dvc status` of the generate stage in a fresh clone of the committed
repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from roundlab.data import compose_config, generate, load

from .support import BUILTIN, BUNDLED, REPO, write_csv


def run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


def fresh_clone(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A clone of the committed repository and the environment its stages run in."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "ROUNDLAB_ROOT"}
    # Stage commands call `python`: the environment's one (as the Makefile arranges), running
    # the clone's code rather than the checkout an editable install points at.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(clone / "src")
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    return clone, env


@pytest.mark.slow
def test_dvc_repro_generates_each_dataset_once_and_reruns_only_what_changed(tmp_path):
    clone, env = fresh_clone(tmp_path)
    dvc = [str(Path(sys.executable).parent / "dvc"), "repro", "generate"]

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
    clone, env = fresh_clone(tmp_path)
    dvc = str(Path(sys.executable).parent / "dvc")
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
