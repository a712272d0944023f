"""Everything the report computes from roundlab.activations, once: the gallery's evaluations,
the gradient checks, the hand-written gradients, the spiky example and the numpy cost. The
summary, the gradient-check section and the figures all read these values; nothing here draws.

Each parameterised activation is evaluated at the values the sweep ran it with (its default
where it was not swept); numpy-backed activations at the values of their TensorFlow twin.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from roundlab.report import cost, gradcheck, handwritten
from roundlab.report.gradcheck import GRID, CheckRow, Evaluation

GALLERY_RANGE = (-1.5, 2.5)
SIGMOID_RANGE = (-0.5, 2.5)  # three periods of sigmoid_round's gradient
SPIKY_RANGE = (-0.25, 2.25)  # the example's four points and the spikes around them


def _grid(bounds: tuple[float, float]) -> np.ndarray:
    """The points of the check grid within ``bounds``, both ends included."""
    x = GRID
    return x[(x >= bounds[0]) & (x <= bounds[1])]


def _values(swept: dict[str, list[float]], name: str) -> list[float]:
    """The values ``name`` ran with, or its registered default."""
    from roundlab import activations

    return swept.get(name) or [activations.spec(name).default]


def parameterless() -> list[str]:
    """The TensorFlow activations without a parameter, in registry order."""
    from roundlab import activations

    return [
        n
        for n in activations.names()
        if activations.spec(n).param is None and not activations.spec(n).numpy_backed
    ]


def gallery_rows(swept: dict[str, list[float]]) -> list[tuple[str, list[Evaluation]]]:
    """One row per parameterised TensorFlow activation (its swept values), then one row of the
    parameterless ones."""
    from roundlab import activations

    x = _grid(GALLERY_RANGE)
    rows = []
    for name in activations.names():
        spec = activations.spec(name)
        if spec.param is None or spec.numpy_backed:
            continue
        rows.append(
            (name, [gradcheck.evaluate(name, {spec.param: v}, x) for v in _values(swept, name)])
        )
    rows.append(("no parameter", [gradcheck.evaluate(n, {}, x) for n in parameterless()]))
    return rows


@dataclass(frozen=True)
class SigmoidCurve:
    """sigmoid_round at one steepness: TensorFlow's gradient and the hand-written one."""

    steepness: float
    evaluation: Evaluation
    handwritten_grad: np.ndarray


@dataclass(frozen=True)
class GradientResults:
    checks: list[CheckRow]
    handwritten: list[handwritten.HandwrittenRow]
    spiky: list[handwritten.SpikyRow]
    cost: cost.Recorded | None  # None when nothing was recorded or it was left out
    sigmoid: list[SigmoidCurve]
    spiky_tf: Evaluation
    spiky_np: Evaluation


def gradient_checks(swept: dict[str, list[float]]) -> list[CheckRow]:
    """Every registered activation against its reference at each value it ran with."""
    from roundlab import activations

    rows = []
    for name in activations.names():
        spec = activations.spec(name)
        if spec.param is None:
            rows.append(gradcheck.check(name, {}))
            continue
        values = swept.get(gradcheck.tensorflow_twin(name) or name) or [spec.default]
        rows += [gradcheck.check(name, {spec.param: v}) for v in values]
    return rows


def compute_gradients(
    swept: dict[str, list[float]], recorded_cost: cost.Recorded | None
) -> GradientResults:
    """All the gradient numbers, with the recorded numpy cost (None: left out)."""
    ks = _values(swept, "sigmoid_round")
    sigmoid_x, spiky_x = _grid(SIGMOID_RANGE), _grid(SPIKY_RANGE)
    sigmoid = [
        SigmoidCurve(
            k,
            gradcheck.evaluate("sigmoid_round", {"steepness": k}, sigmoid_x),
            handwritten.approx_round_grad(sigmoid_x, k),
        )
        for k in ks
    ]
    return GradientResults(
        gradient_checks(swept),
        handwritten.handwritten_gradients(ks, _values(swept, "sine_round")),
        handwritten.spiky_example(),
        recorded_cost,
        sigmoid,
        gradcheck.evaluate("spiky", {}, spiky_x),
        gradcheck.evaluate("spiky_np", {}, spiky_x),
    )
