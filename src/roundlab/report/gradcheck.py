"""The numbers behind the gallery and the gradient-check section (from roundlab.activations).

Every gradient is TensorFlow's (``tf.GradientTape``), compared with an independent reference:
central finite differences of the forward where the function is differentiable (points within
:data:`MARGIN` of a jump or kink are left out, and the table says so), the documented formula
where the gradient is a surrogate by design (straight-through, Gaussian comb), and the
TensorFlow twin for each numpy-backed activation.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

DTYPE = "float64"  # finite differences in float32 would bury the errors we look for
FD_STEP = 1e-6
MARGIN = 1e-3  # distance from a jump or kink below which finite differences are not used
TOLERANCE = 1e-4  # max |error| / max(1, max |reference|) for "agrees"
GRID = np.linspace(-2.0, 3.0, 5001)
SPIKY_X = (0.2, 0.7, 1.2, 1.7)
SPIKY_Y = (0.2, 0.0, 0.2, 0.0)
SPIKY_DY = (1.0, 0.0, 1.0, 0.0)


@dataclass(frozen=True)
class Evaluation:
    """Forward and TensorFlow gradient on ``x``; ``grad`` is None when TF has no gradient."""

    name: str
    params: dict[str, float]
    x: np.ndarray
    y: np.ndarray
    grad: np.ndarray | None


def _activations():
    """roundlab.activations, imported on first use: it brings TensorFlow, which a report built
    with ``--no-gradients`` does not need."""
    from roundlab import activations

    return activations


def evaluate(name: str, params: dict[str, float], x: np.ndarray) -> Evaluation:
    import tensorflow as tf

    activations = _activations()
    act = activations.get(name, **params)
    xt = tf.constant(np.asarray(x, dtype=DTYPE))
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = act(xt)
    grad = tape.gradient(y, xt)
    return Evaluation(
        name,
        dict(act.params),
        np.asarray(x, dtype=DTYPE),
        y.numpy().astype(DTYPE),
        None if grad is None else grad.numpy().astype(DTYPE),
    )


def _frac(x: np.ndarray) -> np.ndarray:
    return x - np.floor(x)


def _near(x: np.ndarray, points_in_unit: list[float]) -> np.ndarray:
    """Whether x lies within MARGIN of ``n + p`` for an integer n and a p in ``points_in_unit``."""
    r = _frac(x)
    mask = np.zeros_like(x, dtype=bool)
    for p in points_in_unit:
        d = np.abs(r - p % 1.0)
        mask |= np.minimum(d, 1.0 - d) < MARGIN
    return mask


def _gaussian_comb(x: np.ndarray, sigma: float) -> np.ndarray:
    """Σ_n N(x; n + ½, σ²) over every half-integer within 8σ + 1 of x (the rest is < 1e-13)."""
    reach = int(math.ceil(8.0 * sigma)) + 1
    base = np.floor(x)
    total = np.zeros_like(x)
    for k in range(-reach, reach + 1):
        centre = base + k + 0.5
        total += np.exp(-0.5 * ((x - centre) / sigma) ** 2) / (sigma * math.sqrt(2.0 * math.pi))
    return total


# name -> (reference description, points excluded by kind, formula or None for finite differences)
_Reference = tuple[str, Callable[[dict[str, float]], list[float]], Callable | None]
REFERENCES: dict[str, _Reference] = {
    "identity": ("finite differences", lambda p: [], None),
    "sigmoid_round": ("finite differences (jumps at integers left out)", lambda p: [0.0], None),
    "sine_round": (
        "finite differences (integers and window edges left out)",
        lambda p: [0.0, 0.5 - p["width"] / 2, 0.5 + p["width"] / 2],
        None,
    ),
    "soft_round": ("finite differences", lambda p: [], None),
    "spiky": (
        "finite differences (jumps at half-integers, kinks at integers left out)",
        lambda p: [0.0, 0.5],
        None,
    ),
    "ste_round": ("formula: 1 (straight-through)", lambda p: [], lambda x, p: np.ones_like(x)),
    "comb_round": (
        "formula: Σ N(x; n + ½, σ²) over all half-integers",
        lambda p: [],
        lambda x, p: _gaussian_comb(x, p["sigma"]),
    ),
}


@dataclass(frozen=True)
class CheckRow:
    activation: str
    setting: str
    reference: str
    points: int
    max_error: float | None
    agrees: bool | None  # None: nothing to compare (no gradient, or no reference)
    note: str = ""


def _setting(params: dict[str, float]) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in sorted(params.items())) or "—"


def _score(grad: np.ndarray, ref: np.ndarray) -> tuple[float, bool]:
    err = float(np.max(np.abs(grad - ref))) if grad.size else 0.0
    scale = max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0
    return err, err / scale <= TOLERANCE


def check(name: str, params: dict[str, float]) -> CheckRow:
    """One activation at one setting against its reference on :data:`GRID`."""
    activations = _activations()
    ev = evaluate(name, params, GRID)
    setting = _setting(ev.params)
    if ev.grad is None:
        return CheckRow(
            name,
            setting,
            "—",
            GRID.size,
            None,
            None,
            "TensorFlow has no gradient: training with it must fail (negative control)",
        )
    if activations.spec(name).numpy_backed and name.endswith("_np"):
        twin = evaluate(name[: -len("_np")], params, GRID)
        err, ok = _score(ev.grad, twin.grad)
        ferr = float(np.max(np.abs(ev.y - twin.y)))
        return CheckRow(
            name,
            setting,
            f"its TensorFlow twin {twin.name}",
            GRID.size,
            err,
            ok,
            f"forward max |difference| {ferr:.2g}",
        )
    if name not in REFERENCES:
        return CheckRow(name, setting, "—", 0, None, None, "no reference known to the report")
    description, excluded, formula = REFERENCES[name]
    keep = ~_near(GRID, excluded(ev.params))
    x = GRID[keep]
    if formula is not None:
        ref = formula(x, ev.params)
    else:
        up = evaluate(name, params, x + FD_STEP).y
        down = evaluate(name, params, x - FD_STEP).y
        ref = (up - down) / (2.0 * FD_STEP)
    err, ok = _score(ev.grad[keep], ref)
    return CheckRow(name, setting, description, int(keep.sum()), err, ok)


def approx_round_grad(x: np.ndarray, steepness: float) -> np.ndarray:
    """The second thread's hand-written gradient, verbatim in numpy: ``s·(1 − s)``."""
    s = 1.0 / (1.0 + np.exp(-steepness * (_frac(x) - 0.5)))
    return s * (1.0 - s)


def approx_round_grad_sin(x: np.ndarray, width: float) -> np.ndarray:
    """The second thread's clipped cosine, verbatim in numpy."""
    r = _frac(x)
    inside = np.abs(r - 0.5) < width / 2
    return np.pi * np.cos(np.pi * ((r - 0.5) / width)) / (2 * width) * inside


@dataclass(frozen=True)
class ThreadRow:
    function: str
    setting: str
    max_error: float
    ratio: float | None  # median autodiff / thread over points where both are > 1e-6
    verdict: str


def thread_gradients(steepness: list[float], width: list[float]) -> list[ThreadRow]:
    """The thread's hand-written gradients against TensorFlow's gradient of the same forward."""
    x = GRID[~_near(GRID, [0.0])]
    rows = []
    for k in steepness:
        tf_grad = evaluate("sigmoid_round", {"steepness": k}, x).grad
        thread = approx_round_grad(x, k)
        both = (np.abs(thread) > 1e-6) & (np.abs(tf_grad) > 1e-6)
        ratio = float(np.median(tf_grad[both] / thread[both])) if both.any() else None
        err = float(np.max(np.abs(tf_grad - thread)))
        verdict = (
            ("agrees" + (" (k = 1: the missing factor is 1)" if k == 1 else ""))
            if err <= TOLERANCE * max(1.0, float(np.max(np.abs(tf_grad))))
            else f"wrong: misses the factor k (autodiff / thread = {ratio:.4g})"
        )
        rows.append(ThreadRow("approx_round_grad", f"steepness={k:g}", err, ratio, verdict))
    for w in width:
        keep = ~_near(GRID, [0.0, 0.5 - w / 2, 0.5 + w / 2])
        tf_grad = evaluate("sine_round", {"width": w}, GRID[keep]).grad
        thread = approx_round_grad_sin(GRID[keep], w)
        err = float(np.max(np.abs(tf_grad - thread)))
        ok = err <= TOLERANCE * max(1.0, float(np.max(np.abs(tf_grad))))
        rows.append(
            ThreadRow(
                "approx_round_grad_sin", f"width={w:g}", err, None, "agrees" if ok else "disagrees"
            )
        )
    return rows


@dataclass(frozen=True)
class SpikyRow:
    implementation: str
    y: tuple[float, ...]
    grad: tuple[float, ...]
    matches: bool


def spiky_example() -> list[SpikyRow]:
    """The first thread's test, through numpy_activation (spiky_np) and through TF ops (spiky)."""
    rows = []
    for name, label in (
        ("spiky_np", "numpy_activation (the thread's recipe)"),
        ("spiky", "TensorFlow ops + autodiff"),
    ):
        ev = evaluate(name, {}, np.array(SPIKY_X))
        grad = ev.grad if ev.grad is not None else np.full(len(SPIKY_X), np.nan)
        ok = bool(np.allclose(ev.y, SPIKY_Y, atol=1e-6) and np.allclose(grad, SPIKY_DY))
        rows.append(
            SpikyRow(label, tuple(float(v) for v in ev.y), tuple(float(v) for v in grad), ok)
        )
    return rows


@dataclass(frozen=True)
class CostRow:
    activation: str
    mode: str
    median_ms: float | None
    note: str


def numpy_cost(size: int = 1_000_000, repeats: int = 5) -> list[CostRow]:
    """Forward + backward time of each numpy twin against its TensorFlow version, eager and
    XLA-compiled, on ``size`` float32 values (median of ``repeats`` after one warm-up). A short
    measurement to put beside the training times; bench/activations.py is the full benchmark."""
    import tensorflow as tf

    activations = _activations()
    x = tf.random.stateless_uniform((size,), seed=(1, 2), minval=-3.0, maxval=3.0)
    rows = []
    for name in activations.names():
        if not (activations.spec(name).numpy_backed and name.endswith("_np")):
            continue
        for act_name in (name[: -len("_np")], name):
            act = activations.get(act_name)
            modes = [("graph (tf.function)", False)]
            if act.supports_jit:
                modes.append(("XLA (jit_compile=True)", True))
            for mode, jit in modes:
                rows.append(_time(act_name, act, x, mode, jit, repeats))
            if not act.supports_jit:
                rows.append(
                    CostRow(
                        act_name,
                        "XLA (jit_compile=True)",
                        None,
                        "cannot compile: tf.numpy_function runs on the host",
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
