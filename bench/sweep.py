"""One sweep grid through Hydra's basic launcher and through roundlab's vectorised launcher.

sigmoid_round at steepness 1, 5, 20, 100 on the datasets affine and count, seeds 0-4: 40 runs of
20 epochs (early stopping off, so both train the same budget), MLflow off. Each launcher runs
the grid in one ``python -m roundlab.train -m`` process (TensorFlow imported once) writing its
own results directory; the script prints both wall times, their ratio, and how the two sets of
result files compare: the same files, and per configuration the mean test exact match of each
launcher with the largest difference.

    python bench/sweep.py [--epochs 20] [--seeds 5] [--keep DIR] [--json bench/sweep.json]
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

from roundlab import results

STEEPNESS = (1, 5, 20, 100)
DATASETS = ("affine", "count")


def grid(epochs: int, seeds: int) -> list[str]:
    return [
        f"dataset={','.join(DATASETS)}",
        "approach=rounding",
        "activation=sigmoid_round",
        f"activation.steepness={','.join(map(str, STEEPNESS))}",
        f"seed={','.join(map(str, range(seeds)))}",
        f"trainer.epochs={epochs}",
        "trainer.early_stopping.enabled=false",
        "tracking.enabled=false",
    ]


def run(launcher: str, overrides: list[str], root: Path) -> float:
    """Wall seconds of the whole multirun process, import and all."""
    cmd = [
        sys.executable,
        "-m",
        "roundlab.train",
        "-m",
        *overrides,
        f"hydra/launcher={launcher}",
        f"results_dir={root / launcher / 'results'}",
        f"hydra.sweep.dir={root / launcher / 'multirun'}",
    ]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    started = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def test_means(results_dir: Path) -> dict[str, float]:
    """Mean test exact match over seeds per configuration (dataset/variant)."""
    per_config: dict[str, list[float]] = {}
    for r in results.read_all(results_dir):
        if r.ok:
            key = f"{r.dataset}/{r.variant}"
            per_config.setdefault(key, []).append(r.metrics["test"]["exact_match"])
    return {k: statistics.fmean(v) for k, v in sorted(per_config.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None, help="keep the runs under this dir")
    parser.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = parser.parse_args(argv)
    root = args.keep or Path(tempfile.mkdtemp(prefix="roundlab-bench-"))
    overrides = grid(args.epochs, args.seeds)
    runs = len(DATASETS) * len(STEEPNESS) * args.seeds
    wall = {launcher: run(launcher, overrides, root) for launcher in ("basic", "vectorized")}
    files = {
        launcher: sorted(
            p.relative_to(root / launcher / "results").as_posix()
            for p in (root / launcher / "results").rglob("*.json")
        )
        for launcher in wall
    }
    means = {launcher: test_means(root / launcher / "results") for launcher in wall}
    gap = max(abs(means["basic"][k] - means["vectorized"][k]) for k in means["basic"])
    print(f"{runs} runs, {args.epochs} epochs each, MLflow off; runs kept in {root}\n")
    print("| launcher | wall s | s per run |\n|---|---:|---:|")
    for launcher, seconds in wall.items():
        print(f"| {launcher} | {seconds:.1f} | {seconds / runs:.2f} |")
    print(f"\nvectorized is {wall['basic'] / wall['vectorized']:.1f}x faster")
    print(f"same result files: {files['basic'] == files['vectorized']} ({len(files['basic'])})")
    print("\n| configuration | basic test exact match | vectorized |\n|---|---:|---:|")
    for key in means["basic"]:
        vectorized = means["vectorized"].get(key, float("nan"))
        print(f"| {key} | {means['basic'][key]:.3f} | {vectorized:.3f} |")
    print(f"\nlargest difference of a configuration's mean: {gap:.3f}")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "wall_s": wall, "means": means}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
