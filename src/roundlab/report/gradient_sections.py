"""The gradient-check section: tables and prose from the values in gradients.py."""

from __future__ import annotations

from pathlib import Path

from roundlab.report import gradcheck
from roundlab.report.cells import vector
from roundlab.report.cost import Recorded
from roundlab.report.document import Block, Figure, Paragraph, Table
from roundlab.report.gradients import GradientResults
from roundlab.report.handwritten import CUSTOM_ACTIVATION_QA, ROUNDING_QA

VERDICTS = {True: "agrees", False: "**DISAGREES**", None: "—"}


def _checks(grad: GradientResults) -> list[Block]:
    method = Paragraph(
        "Each activation's TensorFlow gradient (GradientTape) on a grid of "
        f"{gradcheck.GRID.size} points in [{gradcheck.GRID[0]:g}, {gradcheck.GRID[-1]:g}] "
        "(integers and half-integers included), in float64, against an independent reference: "
        f"central finite differences (step {gradcheck.FD_STEP:g}) of the forward where it is "
        f"differentiable, leaving out points within {gradcheck.MARGIN:g} of a jump or kink; "
        "the "
        "documented formula where the gradient is a surrogate by design; the TensorFlow twin "
        "for "
        f"numpy-backed ones. Agrees: max |error| ≤ {gradcheck.TOLERANCE:g} × max(1, max "
        "|reference|)."
    )
    rows = tuple(
        (
            r.activation,
            r.setting,
            r.reference,
            str(r.points),
            "—" if r.max_error is None else f"{r.max_error:.2e}",
            VERDICTS[r.agrees],
            r.note,
        )
        for r in grad.checks
    )
    header = ("activation", "setting", "reference", "points", "max |error|", "verdict", "note")
    return [method, Table(header, rows)]


def _handwritten(grad: GradientResults) -> list[Block]:
    intro = Paragraph(
        f'The hand-written gradients of the answers to "{ROUNDING_QA}" against TensorFlow\'s '
        "gradient of the same forward (points at the integers, where approx_round jumps, left "
        "out). approx_round_grad returns s·(1 − s); the derivative of floor(x) + s with "
        "s = sigmoid(k·(frac(x) − 0.5)) is k·s·(1 − s), so the ratio must come out as k."
    )
    header = (
        "hand-written function",
        "setting",
        "max |hand-written − TensorFlow|",
        "TensorFlow / hand-written (median)",
        "verdict",
    )
    rows = tuple(
        (
            t.function,
            t.setting,
            f"{t.max_error:.3g}",
            "—" if t.ratio is None else f"{t.ratio:.4g}",
            t.verdict,
        )
        for t in grad.handwritten
    )
    return [intro, Table(header, rows)]


def _spiky(grad: GradientResults) -> list[Block]:
    intro = Paragraph(
        f'The worked example of "{CUSTOM_ACTIVATION_QA}": spiky on x = [0.2, 0.7, 1.2, 1.7] '
        "must give y = [0.2, 0, 0.2, 0] and dy/dx = [1, 0, 1, 0]."
    )
    rows = tuple(
        (s.implementation, vector(s.y), vector(s.grad), "yes" if s.matches else "**NO**")
        for s in grad.spiky
    )
    return [intro, Table(("implementation", "y", "dy/dx", "matches the example"), rows)]


def _cost(recorded: Recorded) -> list[Block]:
    machine = ", ".join(f"{k} {v}" for k, v in sorted(recorded.machine.items()))
    intro = Paragraph(
        "What a numpy-defined activation costs: forward + backward time, recorded by "
        f"`{recorded.command}` ({machine}), not measured while this report was built; "
        "`make bench` measures again on your machine. tf.numpy_function runs on the host "
        "under the GIL, so it cannot be XLA-compiled, is never placed on a GPU, and is not "
        "saved with a SavedModel."
    )
    rows = tuple(
        (c.activation, c.mode, "—" if c.median_ms is None else f"{c.median_ms:.1f}", c.note)
        for c in recorded.rows
    )
    return [intro, Table(("activation", "mode", "median time (ms)", "note"), rows)]


def gradient_blocks(grad: GradientResults, figure: Path) -> list[Block]:
    """Checks against references, the hand-written gradients, the spiky example, their figure,
    and the numpy cost when it was measured."""
    caption = (
        "Top: TensorFlow's gradient of sigmoid_round (solid) and the hand-written "
        "approx_round_grad (dotted), which is k times too small. Bottom: spiky and its "
        "gradient, with the example's four test points."
    )
    blocks = _checks(grad) + _handwritten(grad) + _spiky(grad) + [Figure(figure, caption)]
    return blocks + (_cost(grad.cost) if grad.cost else [])
