"""`python -m roundlab.sweep` run from a copy of the package, as real processes: after a comment
is appended to a tracking module every run is reused; after one is appended to
activations/sigmoid.py exactly the sigmoid_round runs train again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from roundlab import results

pytestmark = pytest.mark.slow

SRC = Path(__file__).resolve().parents[2] / "src"
PROFILE = {
    "datasets": ["count"],
    "seeds": [0],
    "approaches": ["classification"],
    "activations": {"sigmoid_round": [5], "sine_round": [0.5]},
    "overrides": ["trainer.epochs=2", "model.hidden_sizes=[8]", "trainer.batch_size=32"],
    "dataset_overrides": {"count": ["n_train=200", "n_val=100", "n_test=100", "n_extrapolate=50"]},
    "tracking": False,
}


def _sweep(root: Path, src: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(src),  # the copy's code, for the sweep and its multiruns
        "ROUNDLAB_ROOT": str(root),
        "TF_CPP_MIN_LOG_LEVEL": "2",
    }
    cmd = [sys.executable, "-m", "roundlab.sweep", "--params", str(root / "params.yaml")]
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


def _written(root: Path) -> dict[str, int]:
    """Each result file by the activation of its run ("-" for none), with its mtime."""
    found = {}
    for path in (root / "results").rglob("seed=*.json"):
        config = results.read(path).config
        uses = config["approach"]["name"] == "rounding"
        found[config["activation"]["name"] if uses else "-"] = path.stat().st_mtime_ns
    return found


def _edit(path: Path) -> None:
    with path.open("a") as handle:
        handle.write("# edited\n")


def test_a_tracking_edit_retrains_nothing_and_an_activation_edit_only_its_runs(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(SRC, src, ignore=shutil.ignore_patterns("__pycache__"))
    root = tmp_path / "project"
    root.mkdir()
    (root / "params.yaml").write_text(yaml.safe_dump({"datasets": ["count"], "profile": "p"}))
    (root / "profiles.yaml").write_text(yaml.safe_dump({"p": PROFILE}))
    (root / "dvc.yaml").write_text("stages: {}\n")

    _sweep(root, src)
    first = _written(root)
    assert set(first) == {"-", "sigmoid_round", "sine_round"}

    _edit(src / "roundlab" / "tracking" / "tracker.py")
    _sweep(root, src)
    assert _written(root) == first  # every run reused

    _edit(src / "roundlab" / "activations" / "sigmoid.py")
    _sweep(root, src)
    again = _written(root)
    assert {run for run in first if again[run] != first[run]} == {"sigmoid_round"}
