"""The report's sections, each a function from computed values (and the path of its figure) to
document blocks: sweep curves, activation gallery, learning curves, failed runs, environment.
The headline tables are in headline_sections.py, the gradient-check section in
gradient_sections.py, the method in method.py, the short answers in summary.py.
"""

from __future__ import annotations

from pathlib import Path

from roundlab.report.cells import cell
from roundlab.report.curves import SweepCurve
from roundlab.report.document import Block, Code, Figure, Heading, Paragraph, Table
from roundlab.report.selection import Configuration
from roundlab.results import RunResult, expected_failure

EXPECTED = "expected failures of the hard_round control"


def failure_counts(results: list[RunResult]) -> str:
    """``3 failed`` or ``0 failed, 60 expected failures of the hard_round control``: the
    failures that say something broke, then those of the control when there are any."""
    expected = sum(expected_failure(r) for r in results)
    failed = sum(not r.ok for r in results) - expected
    return f"{failed} failed" + (f", {expected} {EXPECTED}" if expected else "")


def _sweep_row(curve: SweepCurve) -> tuple[str, ...]:
    zero = " → ".join(f"{iv.mean:.2f}" if iv.n else "?" for iv in curve.zero_grad_fraction)
    return (
        curve.activation,
        curve.param,
        ", ".join(f"{v:g}" for v in curve.values),
        f"{curve.values[curve.best]:g}",
        cell(curve.test_exact_match[curve.best]),
        zero,
    )


def sweep_blocks(dataset: str, curves: list[SweepCurve], figure: Path | None) -> list[Block]:
    """The sweep figure (None when nothing was swept over two or more values) and a table row
    per swept activation."""
    if figure is None:
        return [
            Heading(dataset, 3),
            Paragraph("No activation was swept over two or more values on this dataset."),
        ]
    header = (
        "activation",
        "knob",
        "values swept",
        "best on val",
        "test exact match there",
        "zero-gradient fraction along the sweep",
    )
    return [
        Heading(dataset, 3),
        Figure(
            figure,
            f"{dataset}: exact match (val, "
            "test), test MAE and the fraction of training examples with a zero "
            "output gradient, against each activation's knob.",
        ),
        Table(header, tuple(_sweep_row(c) for c in curves)),
    ]


def gallery_blocks(figure: Path) -> list[Block]:
    return [
        Figure(
            figure,
            "Forward and TensorFlow gradient of each activation at the values the "
            "sweep used (the default value where it did not sweep it). sigmoid_round "
            "jumps at every integer by 2·sigmoid(−k/2); comb_round's gradient is almost "
            "zero at the integers for small σ (dead zones); sine_round's is zero outside "
            "its window.",
        )
    ]


def learning_blocks(dataset: str, best: list[Configuration], figure: Path | None) -> list[Block]:
    """The learning-curve figure of the best configuration of each approach (None when no
    finished run recorded a history)."""
    if figure is None:
        return [Heading(dataset, 3), Paragraph("No finished run recorded a history.")]
    names = "; ".join(c.title for c in best)
    return [
        Heading(dataset, 3),
        Figure(
            figure,
            f"{dataset}: loss per epoch for the best "
            f"configuration of each approach on val ({names}).",
        ),
    ]


def _reason(text: str | None) -> str:
    """The last line of an error, which names it; tracebacks are long."""
    if not text:
        return "no reason recorded"
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "no reason recorded"


def _failed_table(failed: list[RunResult]) -> Table:
    by_reason: dict[str, list[RunResult]] = {}
    for r in failed:
        by_reason.setdefault(_reason(r.error), []).append(r)
    rows = []
    for reason, runs in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
        where = sorted({f"{r.dataset}/{r.approach}/{r.variant}" for r in runs})
        seeds = sorted({r.seed for r in runs})
        rows.append((", ".join(where), ", ".join(map(str, seeds)), str(len(runs)), reason))
    return Table(("configurations", "seeds", "runs", "reason"), tuple(rows))


def failed_blocks(results: list[RunResult], missing: list[str]) -> list[Block]:
    failed = [r for r in results if not r.ok]
    if not failed and not missing:
        return [Paragraph("None: every planned run finished.")]
    blocks: list[Block] = []
    if failed:
        blocks.append(
            Paragraph(
                f"Of {len(results)} runs: {failure_counts(results)} (it has no gradient: "
                "the negative control)."
                if any(expected_failure(r) for r in failed)
                else f"Of {len(results)} runs: {failure_counts(results)}."
            )
        )
        blocks.append(_failed_table(failed))
    if missing:
        blocks.append(
            Paragraph(
                f"{len(missing)} planned runs wrote no result file at all (the "
                "process died before it could record a failure):"
            )
        )
        blocks.append(Code("\n".join(missing)))
    return blocks


def environment_blocks(env: dict[str, dict[str, str]]) -> list[Block]:
    blocks: list[Block] = []
    for title, values in env.items():
        if not values:
            continue
        blocks.append(Paragraph(f"**{title}**"))
        blocks.append(Table(("item", "value"), tuple((k, f"`{v}`") for k, v in values.items())))
    return blocks
