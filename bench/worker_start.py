"""What a sweep's worker costs before its first task: ``python -m roundlab.train -m ...
sweep.queue=<dir>`` as :mod:`roundlab.sweep.runner` starts it, on a queue that says stop at
once, so the process imports TensorFlow, Keras and MLflow, opens its MLflow store (an sqlite one
in a tmp dir, whose schema the warm-up start made), finds no task and exits. Every stage of the
pipeline starts its workers this way, each on its own core, before any of them trains.

Per start: wall and CPU seconds (the process's own accounting) and the full garbage
collections it made before its first task would have begun (gc.callbacks, through a
``sitecustomize`` on PYTHONPATH). The median of ``--repeats`` starts after one warm-up.

    python bench/worker_start.py [--repeats 8]
    PYTHONPATH=<other checkout>/src python bench/worker_start.py    # the same on other code
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

from roundlab.sweep import queue

WATCH = """
import atexit, gc, json, os
full = [0]
frozen = [None]
gc.callbacks.append(lambda phase, info: phase == "start" and info["generation"] == 2
                    and frozen[0] is None and full.__setitem__(0, full[0] + 1))
_freeze = gc.freeze
def _freezing():
    frozen[0] = full[0]
    _freeze()
gc.freeze = _freezing
atexit.register(lambda: open(os.environ["WATCH_FILE"], "w").write(json.dumps(full[0])))
"""


def start(tmp: Path, n: int) -> dict:
    """One worker's start and end in ``tmp``: wall s, CPU s, full collections before its task."""
    watch_file = tmp / f"watch-{n}.json"
    env = {k: v for k, v in os.environ.items() if k != "MLFLOW_TRACKING_URI"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp / "watch"), env.get("PYTHONPATH")]))
    env |= {"WATCH_FILE": str(watch_file), "ROUNDLAB_ROOT": str(tmp)}
    cmd = [
        sys.executable,
        "-m",
        "roundlab.train",
        "-m",
        f"results_dir={tmp / 'results'}",
        f"hydra.sweep.dir={tmp / 'multirun' / f'worker-{n}'}",
        "hydra/launcher=vectorized",
        f"{queue.KEY}={tmp / 'queue'}",
    ]
    log = tmp / f"worker-{n}.log"
    began = time.perf_counter()
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=tmp, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - began
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"the worker exited {proc.returncode}:\n{log.read_text()[-2000:]}")
    return {
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "full_collections": json.loads(watch_file.read_text()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "watch").mkdir()
        (tmp / "watch" / "sitecustomize.py").write_text(WATCH)
        (tmp / "queue").mkdir()
        queue.stop(tmp / "queue")
        start(tmp, 0)  # warm-up: the first start also makes the store's schema
        runs = [start(tmp, n) for n in range(1, args.repeats + 1)]
    wall = statistics.median(r["wall_s"] for r in runs)
    cpu = statistics.median(r["cpu_s"] for r in runs)
    full = sorted({r["full_collections"] for r in runs})
    print(
        f"worker start, median of {len(runs)}: {wall:.2f} s wall, {cpu:.2f} s CPU "
        f"(wall {min(r['wall_s'] for r in runs):.2f}-{max(r['wall_s'] for r in runs):.2f}); "
        f"full collections before its first task: {full}"
    )


if __name__ == "__main__":
    main()
