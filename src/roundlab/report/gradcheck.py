"""Gradient checks: each activation's TensorFlow gradient against an independent reference.

Every gradient is TensorFlow's (``tf.GradientTape``), compared with an independent reference:
central finite differences of the forward where the function is differentiable (points within
:data:`MARGIN` of a jump or kink are left out, and the table says so), the documented formula
where the gradient is a surrogate by design (straight-through, Gaussian comb), and the
TensorFlow twin for each numpy-backed activation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

DTYPE = "float64"  # finite differences in float32 would bury the errors we look for
FD_STEP = 1e-6
MARGIN = 1e-3  # distance from a jump or kink below which finite differences are not used
TOLERANCE = 1e-4  # max |error| / max(1, max |reference|) for "agrees"
GRID = np.linspace(-2.0, 3.0, 5001)
NUMPY_SUFFIX = "_np"


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


def tensorflow_twin(name: str) -> str | None:
    """``spiky`` for ``spiky_np``: the TensorFlow-ops version of a numpy-backed activation,
    named without the ``_np`` suffix; None for any other activation."""
    if _activations().spec(name).numpy_backed and name.endswith(NUMPY_SUFFIX):
        return name[: -len(NUMPY_SUFFIX)]
    return None


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


def frac(x: np.ndarray) -> np.ndarray:
    return x - np.floor(x)


def near(x: np.ndarray, points_in_unit: list[float]) -> np.ndarray:
    """Whether x lies within MARGIN of ``n + p`` for an integer n and a p in ``points_in_unit``."""
    r = frac(x)
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
    twin_name = tensorflow_twin(name)
    if twin_name is not None:
        twin = evaluate(twin_name, params, GRID)
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
    keep = ~near(GRID, excluded(ev.params))
    x = GRID[keep]
    if formula is not None:
        ref = formula(x, ev.params)
    else:
        up = evaluate(name, params, x + FD_STEP).y
        down = evaluate(name, params, x - FD_STEP).y
        ref = (up - down) / (2.0 * FD_STEP)
    err, ok = _score(ev.grad[keep], ref)
    return CheckRow(name, setting, description, int(keep.sum()), err, ok)
