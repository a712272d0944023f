"""The hand-written gradients and the worked example of two community Q&A threads, checked
against TensorFlow.

"What activation function should I use to enforce rounding-like behaviour?" gives
``approx_round(x, k) = floor(x) + s`` with ``s = sigmoid(k·(frac(x) − 0.5))`` and the gradient
``approx_round_grad = s·(1 − s)``; the true derivative is ``k·s·(1 − s)``, so the ratio of
TensorFlow's gradient to the hand-written one must come out as k. Its ``approx_round_sin`` has
the clipped cosine ``π·cos(π·(frac(x) − 0.5)/w) / (2w)`` inside a window of width ``w``.

"How to make a custom activation function with only Python in Tensorflow?" defines
``spiky(x) = r if r <= 0.5 else 0`` with ``r = x mod 1``: on x = [0.2, 0.7, 1.2, 1.7] it must
give y = [0.2, 0, 0.2, 0] and dy/dx = [1, 0, 1, 0].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roundlab.report import gradcheck
from roundlab.report.gradcheck import GRID, TOLERANCE, frac, near

ROUNDING_QA = "What activation function should I use to enforce rounding-like behaviour?"
CUSTOM_ACTIVATION_QA = "How to make a custom activation function with only Python in Tensorflow?"
SPIKY_X = (0.2, 0.7, 1.2, 1.7)
SPIKY_Y = (0.2, 0.0, 0.2, 0.0)
SPIKY_DY = (1.0, 0.0, 1.0, 0.0)


def approx_round_grad(x: np.ndarray, steepness: float) -> np.ndarray:
    """The hand-written gradient of approx_round, verbatim in numpy: ``s·(1 − s)``."""
    s = 1.0 / (1.0 + np.exp(-steepness * (frac(x) - 0.5)))
    return s * (1.0 - s)


def approx_round_grad_sin(x: np.ndarray, width: float) -> np.ndarray:
    """The hand-written gradient of approx_round_sin (a clipped cosine), verbatim in numpy."""
    r = frac(x)
    inside = np.abs(r - 0.5) < width / 2
    return np.pi * np.cos(np.pi * ((r - 0.5) / width)) / (2 * width) * inside


@dataclass(frozen=True)
class HandwrittenRow:
    function: str
    setting: str
    max_error: float
    ratio: float | None  # median autodiff / hand-written over points where both are > 1e-6
    verdict: str


def handwritten_gradients(steepness: list[float], width: list[float]) -> list[HandwrittenRow]:
    """The hand-written gradients against TensorFlow's gradient of the same forward, at each
    steepness of sigmoid_round and each width of sine_round."""
    return [_sigmoid_row(k) for k in steepness] + [_sine_row(w) for w in width]


def _sigmoid_row(k: float) -> HandwrittenRow:
    x = GRID[~near(GRID, [0.0])]  # approx_round jumps at the integers
    tf_grad = gradcheck.evaluate("sigmoid_round", {"steepness": k}, x).grad
    written = approx_round_grad(x, k)
    both = (np.abs(written) > 1e-6) & (np.abs(tf_grad) > 1e-6)
    ratio = float(np.median(tf_grad[both] / written[both])) if both.any() else None
    err = float(np.max(np.abs(tf_grad - written)))
    verdict = (
        ("agrees" + (" (k = 1: the missing factor is 1)" if k == 1 else ""))
        if err <= TOLERANCE * max(1.0, float(np.max(np.abs(tf_grad))))
        else f"wrong: misses the factor k (autodiff / hand-written = {ratio:.4g})"
    )
    return HandwrittenRow("approx_round_grad", f"steepness={k:g}", err, ratio, verdict)


def _sine_row(w: float) -> HandwrittenRow:
    keep = ~near(GRID, [0.0, 0.5 - w / 2, 0.5 + w / 2])
    tf_grad = gradcheck.evaluate("sine_round", {"width": w}, GRID[keep]).grad
    written = approx_round_grad_sin(GRID[keep], w)
    err = float(np.max(np.abs(tf_grad - written)))
    ok = err <= TOLERANCE * max(1.0, float(np.max(np.abs(tf_grad))))
    return HandwrittenRow(
        "approx_round_grad_sin", f"width={w:g}", err, None, "agrees" if ok else "disagrees"
    )


@dataclass(frozen=True)
class SpikyRow:
    implementation: str
    y: tuple[float, ...]
    grad: tuple[float, ...]
    matches: bool


def spiky_example() -> list[SpikyRow]:
    """The spiky example through numpy_activation (spiky_np) and through TF ops (spiky)."""
    rows = []
    for name, label in (
        ("spiky_np", "numpy_activation (the numpy recipe)"),
        ("spiky", "TensorFlow ops + autodiff"),
    ):
        ev = gradcheck.evaluate(name, {}, np.array(SPIKY_X))
        grad = ev.grad if ev.grad is not None else np.full(len(SPIKY_X), np.nan)
        ok = bool(np.allclose(ev.y, SPIKY_Y, atol=1e-6) and np.allclose(grad, SPIKY_DY))
        rows.append(
            SpikyRow(label, tuple(float(v) for v in ev.y), tuple(float(v) for v in grad), ok)
        )
    return rows
