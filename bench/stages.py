"""What the pipeline's sweep stages cost from fresh: each dataset's ``sweep@<name>``.

The project's params.yaml and profiles.yaml (its active profile, every dataset) in a tmp
project whose ``data/`` and ``inputs/`` are links to this checkout's (run ``dvc repro generate``
first), so the checkout's results, runs and MLflow store are left alone. Each dataset's
``python -m roundlab.sweep --dataset <name>`` runs as DVC runs it, one after another, into
empty results and a new MLflow store: its wall time, its runs (``_sweep_log.yaml``) and the
peak resident set of its largest process (the sweep or one of its workers).

    python bench/stages.py [--datasets affine count] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def stage(root: Path, dataset: str) -> dict:
    """One sweep stage in ``root``: wall time, runs, reused runs and peak RSS (MB)."""
    env = {**os.environ, "ROUNDLAB_ROOT": str(root)}
    cmd = [sys.executable, "-m", "roundlab.sweep", "--dataset", dataset]
    log = root / f"{dataset}.log"
    started = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
        # this stage's own peak: its process tree's largest, not an earlier stage's
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"sweep@{dataset} exited {proc.returncode}:\n{log.read_text()[-3000:]}")
    sweep_log = yaml.safe_load((root / "multirun" / dataset / "_sweep_log.yaml").read_text())
    return {
        "dataset": dataset,
        "wall_s": round(wall, 1),
        "runs": sum(r["runs"] for r in sweep_log["rounds"]),
        "workers": len(sweep_log["multiruns"]),
        "peak_rss_mb": round(usage.ru_maxrss / 1024),
        "load_before": os.getloadavg()[0],
    }


def project(tmp: Path) -> Path:
    """A tmp project with this checkout's params, profiles and (linked) data."""
    for name in ("params.yaml", "profiles.yaml", "dvc.yaml"):
        shutil.copy(ROOT / name, tmp / name)
    for name in ("data", "inputs"):
        if (ROOT / name).exists():
            (tmp / name).symlink_to(ROOT / name)
    return tmp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", help="default: every dataset of params.yaml")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    datasets = args.datasets or list(yaml.safe_load((ROOT / "params.yaml").read_text())["datasets"])
    missing = [d for d in datasets if not (ROOT / "data" / d).is_dir()]
    if missing:
        raise SystemExit(f"no data/ for {missing}: run `dvc repro generate` first")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = project(Path(tmp))
        for dataset in datasets:
            rows.append(stage(root, dataset))
            r = rows[-1]
            print(
                f"sweep@{dataset}: {r['runs']} runs in {r['wall_s']} s, {r['workers']} workers, "
                f"peak RSS {r['peak_rss_mb']} MB (load {r['load_before']:.1f} before)"
            )
    total = round(sum(r["wall_s"] for r in rows), 1)
    runs = sum(r["runs"] for r in rows)
    print(f"all {len(rows)} stages: {runs} runs in {total} s ({total / runs:.3f} s a run)")
    if args.json:
        args.json.write_text(json.dumps({"stages": rows, "total_s": total, "runs": runs}) + "\n")


if __name__ == "__main__":
    main()
