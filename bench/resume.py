"""What a sweep costs when every run is reusable, and how many processes it starts.

A small project in a tmp directory (the count dataset at 300 training rows; regression,
classification, sigmoid_round at two steepness values and the hard_round control; two seeds,
two rates, 2 epochs, two rounds of rate extensions, MLflow on), swept once, then swept again
``--repeats`` times with nothing to train: the median and range of the rerun's wall time, the
time the sweep itself reports, and how many multiruns it started (``_sweep_log.yaml``: none,
the sweep decides in its own process without TensorFlow, :mod:`roundlab.sweep.decide`).

    python bench/resume.py [--repeats 5] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

PROFILE = {
    "seeds": [0, 1],
    "approaches": ["regression", "classification"],
    "activations": {"sigmoid_round": [5, 10], "hard_round": None},
    "learning_rates": [0.01, 0.003],
    "overrides": ["trainer.epochs=2", "model.hidden_sizes=[16]", "trainer.batch_size=32"],
    "dataset_overrides": {"count": ["n_train=300", "n_val=100", "n_test=100"]},
    "processes": 2,
}


def sweep(root: Path) -> tuple[float, dict]:
    """One ``python -m roundlab.sweep`` in ``root``: its wall time and its sweep log."""
    env = {**os.environ, "ROUNDLAB_ROOT": str(root)}
    cmd = [sys.executable, "-m", "roundlab.sweep", "--params", str(root / "params.yaml")]
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return wall, yaml.safe_load((root / "multirun" / "_sweep_log.yaml").read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "params.yaml").write_text("datasets: {count: {}}\nprofile: p\n")
        (root / "profiles.yaml").write_text(yaml.safe_dump({"p": PROFILE}))
        (root / "dvc.yaml").write_text("stages: {}\n")
        first, log = sweep(root)
        runs = sum(r["runs"] for r in log["rounds"])
        print(f"first sweep: {runs} runs trained in {first:.1f} s")
        walls, logs = zip(*(sweep(root) for _ in range(args.repeats)), strict=True)
    row = {
        "runs": runs,
        "first_sweep_s": round(first, 1),
        "rerun_median_s": round(statistics.median(walls), 2),
        "rerun_min_s": round(min(walls), 2),
        "rerun_max_s": round(max(walls), 2),
        "rerun_reported_s": [lg["wall_time_s"] for lg in logs],
        "reused_before_start": [lg["reused_before_start"] for lg in logs],
        "multiruns_started": [len(lg["multiruns"]) for lg in logs],
    }
    print(
        f"rerun, every run reusable: median {row['rerun_median_s']} s "
        f"(min {row['rerun_min_s']}, max {row['rerun_max_s']}) over {args.repeats}; "
        f"reused before start {row['reused_before_start']}, "
        f"multiruns started {row['multiruns_started']}"
    )
    if args.json:
        args.json.write_text(json.dumps(row, indent=1) + "\n")


if __name__ == "__main__":
    main()
