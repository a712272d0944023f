"""The report's sections, each a function from computed values (and the path of its figure) to
document blocks: headline tables, sweep curves, activation gallery, learning curves, failed
runs, environment. The gradient-check section is in gradient_sections.py, the short answers in
summary.py.
"""

from __future__ import annotations

from pathlib import Path

from roundlab.report.cells import cell
from roundlab.report.curves import SweepCurve
from roundlab.report.document import Block, Bullets, Code, Figure, Heading, Paragraph, Table
from roundlab.report.headline import Headline
from roundlab.report.selection import HEADLINE_COLUMNS, SELECTION_COLUMN, Configuration, Winner
from roundlab.report.stats import mean_ci
from roundlab.results import RunResult

HEADLINE_HEADER = (
    "approach",
    "setting (chosen on val)",
    SELECTION_COLUMN.title,
    *(column.title for column in HEADLINE_COLUMNS),
    "runs finished/all",
    "s per run",
)
NO_SPLIT = "no split"


def _shown(split: str, h: Headline) -> bool:
    return h.has_extrapolate or split != "extrapolate"


def _headline_row(cfg: Configuration, h: Headline) -> tuple[str, ...]:
    clear = {w.column: w.leader for w in h.winners if w.clear}
    cells = [
        cfg.label,
        cfg.setting,
        cell(cfg.metric(SELECTION_COLUMN.split, SELECTION_COLUMN.metric)),
    ]
    for column in HEADLINE_COLUMNS:
        value = cfg.metric(column.split, column.metric)
        shown = _shown(column.split, h)
        cells.append(cell(value, clear.get(column) is cfg) if shown else NO_SPLIT)
    seconds = mean_ci(r.duration_s for r in cfg.finished)
    cells += [f"{len(cfg.finished)}/{len(cfg.runs)}", f"{seconds.mean:.1f}" if seconds.n else "—"]
    return tuple(cells)


def _baseline_row(h: Headline) -> tuple[str, ...]:
    cells = ["constant baseline (training median)", "—"]
    for column in (SELECTION_COLUMN, *HEADLINE_COLUMNS):
        shown = _shown(column.split, h)
        cells.append(cell(h.baseline[(column.split, column.metric)]) if shown else NO_SPLIT)
    return (*cells, "—", "—")


def _verdict(w: Winner) -> str:
    what = w.column.title
    if w.leader is None:
        return f"{what}: no finished run has it."
    if w.runner_up is None:
        return f"{what}: only {w.leader.label} has a value; nothing to compare."
    if w.clear:
        return (
            f"{what}: **{w.leader.label}** is best; its interval does not overlap "
            f"the runner-up's ({w.runner_up.label})."
        )
    return (
        f"{what}: no clear winner. {w.leader.label} leads on the mean, but "
        f"its interval overlaps the runner-up's ({w.runner_up.label})."
    )


def headline_blocks(h: Headline) -> list[Block]:
    rows = [_headline_row(cfg, h) for cfg in h.rows] + [_baseline_row(h)]
    verdicts = [_verdict(w) for w in h.winners if _shown(w.column.split, h)]
    return [
        Heading(h.dataset, 3),
        Table(
            HEADLINE_HEADER,
            tuple(rows),
            caption="mean ± 95% CI over seeds (t distribution). "
            "Bold: best in its column with an interval that does not overlap the "
            "runner-up's. Controls, and rows whose test exact match does not beat the "
            "constant baseline's, do not compete.",
        ),
        Bullets(tuple(verdicts)),
    ]


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
                f"{len(failed)} of {len(results)} runs failed. hard_round is "
                "expected here: it has no gradient and is the negative control."
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
