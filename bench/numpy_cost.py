"""Forward + backward time of each numpy-backed activation against its TensorFlow twin.

Each twin (``spiky_np``, ``sigmoid_round_np``, ...) and the TensorFlow-ops version of the same
function run in a plain ``tf.function`` and, where the activation allows it, XLA-compiled, on
``--size`` float32 values in [-3, 3); a time is the median of ``--repeats`` steps after one
warm-up. The rows are written to ``bench/numpy_cost.json``, the recorded measurement the
report's question 5 reads (the report never times anything itself, so it stays a function of its
inputs).

    python bench/numpy_cost.py [--size 1000000] [--repeats 5] [--out bench/numpy_cost.json]
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from roundlab import activations  # noqa: E402
from roundlab.report import cost  # noqa: E402
from roundlab.report.gradcheck import tensorflow_twin  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def numpy_cost(size: int, repeats: int) -> list[cost.CostRow]:
    """Every numpy twin and its TensorFlow version, in graph mode and under XLA."""
    x = tf.random.stateless_uniform((size,), seed=(1, 2), minval=-3.0, maxval=3.0)
    rows = []
    for name in activations.names():
        twin = tensorflow_twin(name)
        if twin is None:
            continue
        for act_name in (twin, name):
            act = activations.get(act_name)
            rows.append(timed(act_name, act, x, cost.GRAPH, False, repeats))
            if act.supports_jit:
                rows.append(timed(act_name, act, x, cost.XLA, True, repeats))
            else:
                note = "cannot compile: tf.numpy_function runs on the host"
                rows.append(cost.CostRow(act_name, cost.XLA, None, note))
    return rows


def timed(name: str, act, x, mode: str, jit: bool, repeats: int) -> cost.CostRow:
    @tf.function(jit_compile=jit)
    def step(v):
        with tf.GradientTape() as tape:
            tape.watch(v)
            y = act(v)
        return tape.gradient(y, v)

    step(x).numpy()  # warm-up: tracing and compilation are not what we measure
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step(x).numpy()
        times.append(time.perf_counter() - start)
    return cost.CostRow(name, mode, round(1e3 * float(np.median(times)), 3), "")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="values per step")
    parser.add_argument("--repeats", type=int, default=5, help="timed steps per row")
    parser.add_argument("--out", type=Path, default=ROOT / cost.RECORD, help="record file")
    args = parser.parse_args(argv)
    rows = numpy_cost(args.size, args.repeats)
    command = shlex.join(["python", "bench/numpy_cost.py", *(argv or sys.argv[1:])])
    machine = {
        "tensorflow": tf.__version__,
        "cpu cores": str(os.cpu_count()),
        "devices": ", ".join(d.device_type for d in tf.config.list_physical_devices()),
        "values": f"{args.size:,} float32",
        "repeats": f"median of {args.repeats} after one warm-up",
    }
    cost.write(cost.Recorded(rows, command, machine), args.out)
    print("| activation | mode | median ms | note |\n|---|---|---:|---|")
    for row in rows:
        ms = "-" if row.median_ms is None else f"{row.median_ms:.1f}"
        print(f"| {row.activation} | {row.mode} | {ms} | {row.note} |")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
