"""`dvc repro` of the generate stage in a fresh clone of the committed repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from roundlab.data import compose_config, generate, load

from .support import BUILTIN, REPO


def run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout + done.stderr


@pytest.mark.slow
def test_dvc_repro_generates_each_dataset_once_and_reruns_only_what_changed(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "ROUNDLAB_ROOT"}
    # Stage commands call `python`: the environment's one (as the Makefile arranges), running
    # the clone's code rather than the checkout an editable install points at.
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(clone / "src")
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    dvc = [str(Path(sys.executable).parent / "dvc"), "repro", "generate"]

    first = run(dvc, clone, env)
    for name in BUILTIN:
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
