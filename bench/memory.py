"""Memory across the jobs of one process: the peak resident set of a multirun of 1 job and of
24 jobs, trained one after another in the same process.

Each job trains a 3000-3000 MLP (regression on count, 1 epoch, MLflow off) through Hydra's
basic launcher, so every job builds, compiles and fits its own Keras model in the process the
previous jobs used. Memory is flat when the 24-job peak stays within 20% of the 1-job peak;
before roundlab skipped the optimizer's one-replica all-reduce (roundlab.engine.models), each
job kept its weights and optimizer slots, about 117 MB, for the rest of the process.

    python bench/memory.py [--jobs 24] [--json bench/memory.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HIDDEN = "[3000,3000]"


def peak_rss_mb(jobs: int, root: Path) -> tuple[float, float]:
    """``(peak resident MB, wall seconds)`` of one multirun process of ``jobs`` jobs."""
    cmd = [
        sys.executable,
        "-m",
        "roundlab.train",
        "-m",
        "hydra/launcher=basic",
        "approach=regression",
        f"model.hidden_sizes={HIDDEN}",
        "trainer.epochs=1",
        "tracking.enabled=false",
        f"seed={','.join(map(str, range(jobs)))}",
        f"results_dir={root / str(jobs) / 'results'}",
        f"hydra.sweep.dir={root / str(jobs) / 'multirun'}",
    ]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    started = time.perf_counter()
    process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the {jobs}-job multirun failed: {' '.join(cmd)}")
    return usage.ru_maxrss / 1024, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=24)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        one, one_s = peak_rss_mb(1, Path(tmp))
        many, many_s = peak_rss_mb(args.jobs, Path(tmp))
    ratio = many / one
    print(f"1 job: peak {one:.0f} MB ({one_s:.0f} s)")
    print(f"{args.jobs} jobs: peak {many:.0f} MB ({many_s:.0f} s)")
    print(f"ratio {ratio:.3f}: {'flat' if ratio <= 1.2 else 'GROWS'} (flat: at most 1.2)")
    if args.json:
        record = {"jobs": args.jobs, "one_job_mb": round(one), "many_jobs_mb": round(many)}
        args.json.write_text(json.dumps({**record, "ratio": round(ratio, 3)}, indent=2) + "\n")


if __name__ == "__main__":
    main()
