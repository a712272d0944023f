"""What a numpy-defined activation costs against the same function in TensorFlow ops: forward +
backward time, in graph mode and XLA-compiled where the activation allows it.

A short measurement to put beside the training times; bench/activations.py is the full benchmark.
``tf.numpy_function`` runs on the host under the GIL, so a numpy-backed activation cannot be
XLA-compiled: its XLA row has no time and says why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from roundlab.report.gradcheck import tensorflow_twin

GRAPH = "graph (tf.function)"
XLA = "XLA (jit_compile=True)"


@dataclass(frozen=True)
class CostRow:
    activation: str
    mode: str
    median_ms: float | None
    note: str


def numpy_cost(size: int = 1_000_000, repeats: int = 5) -> list[CostRow]:
    """Forward + backward time of each numpy twin and of its TensorFlow version on ``size``
    float32 values in [-3, 3) (median of ``repeats`` after one warm-up)."""
    import tensorflow as tf

    from roundlab import activations

    x = tf.random.stateless_uniform((size,), seed=(1, 2), minval=-3.0, maxval=3.0)
    rows = []
    for name in activations.names():
        twin = tensorflow_twin(name)
        if twin is None:
            continue
        for act_name in (twin, name):
            act = activations.get(act_name)
            rows.append(_time(act_name, act, x, GRAPH, False, repeats))
            if act.supports_jit:
                rows.append(_time(act_name, act, x, XLA, True, repeats))
            else:
                rows.append(
                    CostRow(
                        act_name, XLA, None, "cannot compile: tf.numpy_function runs on the host"
                    )
                )
    return rows


def _time(name: str, act, x, mode: str, jit: bool, repeats: int) -> CostRow:
    import tensorflow as tf

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
    return CostRow(name, mode, 1e3 * float(np.median(times)), "")
