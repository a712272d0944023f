"""Forward + backward time of every activation against tf.nn.relu on 4M float32 values.

TensorFlow activations run XLA-compiled (``tf.function(jit_compile=True)``); the numpy twins
run in a plain ``tf.function`` (``tf.numpy_function`` cannot be compiled) and are compared with
the same XLA-compiled relu. A step is one forward pass and the gradient with respect to the
input (hard_round has none: its backward is TensorFlow's zero fill for unconnected gradients).
Each time is the median of repeated steps after warm-up; relu and the activation alternate, so
load from other processes on the machine hits both alike. Prints a markdown table.

    python bench/activations.py [--size 4000000] [--repeats 30] [--json bench/activations.json]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shlex
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from roundlab import activations  # noqa: E402


def make_step(fn, jit_compile: bool):
    def step(x, upstream):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        grad = tape.gradient(
            y, x, output_gradients=upstream, unconnected_gradients=tf.UnconnectedGradients.ZERO
        )
        return y, grad

    return tf.function(step, jit_compile=jit_compile)


def seconds(step, x, upstream) -> float:
    start = time.perf_counter()
    _, grad = step(x, upstream)
    grad.numpy()  # make sure the result exists before the clock stops
    return time.perf_counter() - start


def measure(step, baseline, x, upstream, warmup: int, repeats: int) -> tuple[float, float]:
    """Median seconds of ``step`` and of ``baseline``, timed alternately."""
    for _ in range(warmup):
        seconds(step, x, upstream)
        seconds(baseline, x, upstream)
    own, base = [], []
    for _ in range(repeats):
        own.append(seconds(step, x, upstream))
        base.append(seconds(baseline, x, upstream))
    return statistics.median(own), statistics.median(base)


def posted_approx_round_sin(x, width):
    """The rounding Q&A's approx_round_sin as posted (tf.sin and masks), for comparison only."""
    remainder = tf.math.floormod(x, 1.0)
    sin_part = (1 + tf.sin(np.pi * ((remainder - 0.5) / width))) / 2
    whole = sin_part * tf.cast(tf.abs(remainder - 0.5) < width / 2, x.dtype)
    return tf.floor(x) + whole + tf.cast(remainder > 0.5 + width / 2, x.dtype)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4_000_000, help="values per step")
    parser.add_argument("--repeats", type=int, default=30, help="timed steps (numpy: a third)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)
    numpy_repeats = max(5, args.repeats // 3)

    rng = np.random.default_rng(0)
    x = tf.constant(rng.uniform(-4, 4, args.size).astype(np.float32))
    upstream = tf.constant(rng.normal(size=args.size).astype(np.float32))
    relu = make_step(tf.nn.relu, jit_compile=True)

    candidates = [
        (name, activation.params, activation, activation.supports_jit)
        for name, activation in ((n, activations.get(n)) for n in activations.names())
    ]
    # The straightforward clipped sine that sine_round's polynomial replaces, at the same width.
    width = activations.spec("sine_round").default
    posted = functools.partial(posted_approx_round_sin, width=width)
    candidates.insert(5, ("Q&A's approx_round_sin", {"width": width}, posted, True))

    rows = []
    for name, params, fn, xla in candidates:
        own, base = measure(
            make_step(fn, jit_compile=xla),
            relu,
            x,
            upstream,
            args.warmup,
            args.repeats if xla else numpy_repeats,
        )
        rows.append(
            {
                "activation": name,
                "params": params,
                "backend": "TF ops, XLA" if xla else "numpy, tf.function",
                "ms": own * 1e3,
                "relu_ms": base * 1e3,
                "vs_relu": own / base,
            }
        )

    command = shlex.join(["python", "bench/activations.py", *(argv or sys.argv[1:])])
    print(
        f"`{command}`: tensorflow {tf.__version__}, {os.cpu_count()} CPU cores, "
        f"{args.size:,} float32 values, median of {args.repeats} steps "
        f"({numpy_repeats} for numpy) after {args.warmup} warm-up, relu timed alternately.\n"
    )
    print("| activation | parameter | backend | forward+backward ms | relu ms | × relu |")
    print("|---|---|---|---:|---:|---:|")
    for row in rows:
        params = ", ".join(f"{k}={v:g}" for k, v in row["params"].items()) or "-"
        print(
            f"| {row['activation']} | {params} | {row['backend']} | {row['ms']:.1f} "
            f"| {row['relu_ms']:.1f} | {row['vs_relu']:.2f} |"
        )
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"command": command, "size": args.size, "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
