"""The report's short answers, written from the numbers in answers.py: one function per
question (nothing here is hand-written about the outcome)."""

from __future__ import annotations

from roundlab import approaches
from roundlab.report import answers
from roundlab.report.cells import cell
from roundlab.report.document import Block, Bullets, Heading, Paragraph
from roundlab.report.gradients import GradientResults
from roundlab.report.headline import Headline
from roundlab.report.selection import Configuration
from roundlab.report.verdicts import verdict


def in_range_bullets(items: list[answers.InRange]) -> tuple[str, ...]:
    """1. Do rounding output activations beat classification and MSE-then-round?"""
    out = []
    for item in items:
        rounding = item.rounding
        if rounding is None or not item.against:
            out.append(f"{item.dataset}: no comparison (an approach has no finished run).")
            continue
        parts = [
            f"against {a.approach}: {a.refused}"
            if a.refused
            else f"against {a.approach}: exact match {a.exact_match}, MAE {a.mae}"
            for a in item.against
        ]
        setting = f" ({rounding.setting})" if rounding.params else ""
        out.append(
            f"{item.dataset}: the best rounding activation on val, {rounding.activation}"
            f"{setting}, test exact match {cell(rounding.metric('test', 'exact_match'))}; "
            + "; ".join(parts)
            + "."
        )
    return tuple(out) or ("No datasets with results.",)


def knob_bullets(sweeps: list[answers.KnobSweep]) -> tuple[str, ...]:
    """2. The knobs: where does the gradient vanish?"""
    out = []
    for s in sweeps:
        withheld = dict(s.withheld)
        named = [f"{d} {withheld[d]}" if d in withheld else f"{d} {v:g}" for d, v in s.best]
        text = (
            f"{s.activation}: best {s.param} on val: "
            + ", ".join(named)
            + f" (swept {', '.join(f'{v:g}' for v in s.values)})"
        )
        if s.zero_grad:
            text += (
                f"; fraction of zero output gradients from {s.param}={s.values[0]:g} to "
                f"{s.values[-1]:g}: "
                + ", ".join(f"{d} {lo:.2f} → {hi:.2f}" for d, lo, hi in s.zero_grad)
            )
        out.append(text + ".")
    return tuple(out) or ("Nothing was swept.",)


def extrapolation_bullets(headlines: dict[str, Headline]) -> tuple[str, ...]:
    """3. Extrapolation: exact match on labels outside the training range."""
    out = []
    for dataset, h in headlines.items():
        item = answers.extrapolation(h)
        if item is not None:
            values = ", ".join(
                f"{c.label} {cell(iv, digits=2)}"
                + (" (degenerate)" if c.degenerate else "")
                + (" (cannot, by construction)" if c in item.confined else "")
                for c, iv in item.rows
            )
            out.append(f"{dataset}: {values}. {verdict(item.winner)}")
    return tuple(out) or ("No dataset has an extrapolation split.",)


def gradient_bullets(grad: GradientResults) -> tuple[str, ...]:
    """4. Are the hand-written gradients right?"""
    tally = answers.gradient_tally(grad.checks)
    wrong = ", ".join(f"{r.activation} ({r.setting})" for r in tally.wrong)
    out = [
        f"{tally.agree} of {tally.checked} activation settings with a gradient agree with "
        f"their reference (without one: {', '.join(tally.without_gradient) or 'none'})"
        + (f": disagreeing: {wrong}" if wrong else ".")
    ]
    out += [f"the hand-written {t.function} at {t.setting}: {t.verdict}" for t in grad.handwritten]
    out += [
        f"spiky example via {s.implementation}: {'reproduced' if s.matches else 'NOT reproduced'}"
        for s in grad.spiky
    ]
    return tuple(out)


def cost_bullets(costs: list[answers.NumpyCost]) -> tuple[str, ...]:
    """5. What does a numpy-defined activation cost?"""
    return tuple(
        f"{c.activation}: {c.median_ms:.1f} ms forward + backward; {c.twin}: "
        + ", ".join(f"{mode} {ms:.1f} ms (×{ratio:.1f})" for mode, ms, ratio in c.twin_times)
        + ". Not XLA-compilable."
        for c in costs
    )


def summary_blocks(
    headlines: dict[str, Headline],
    groups: dict[str, list[Configuration]],
    grad: GradientResults | None,
) -> list[Block]:
    """The "Answers in short" section; questions 4 and 5 only when their numbers were computed."""
    in_range = [answers.in_range(h, groups[d]) for d, h in headlines.items()]
    blocks: list[Block] = [
        Heading("Answers in short", 2),
        Paragraph(
            "Read off the tables and figures below; a difference is called only when the 95% "
            "intervals do not overlap and every contender converged, and a degenerate "
            "configuration (no better than the constant baseline) is never called the better "
            "one (see Method)."
        ),
        Paragraph(
            "**1. In range: do rounding output activations beat classification "
            "and MSE-then-round?**"
        ),
        Bullets(in_range_bullets(in_range)),
        Paragraph("**2. The knobs: where does the gradient vanish?**"),
        Bullets(knob_bullets(answers.knobs(groups))),
        Paragraph(
            "**3. Extrapolation: exact match on labels outside the training "
            f"range** ({', '.join(approaches.in_range_only())} cannot, by construction: "
            "they have no output for those labels)"
        ),
        Bullets(extrapolation_bullets(headlines)),
    ]
    if grad is None:
        return blocks
    blocks += [Paragraph("**4. Are the hand-written gradients right?**")]
    blocks += [Bullets(gradient_bullets(grad))]
    if grad.cost:
        blocks += [Paragraph("**5. What does a numpy-defined activation cost?**")]
        blocks += [Bullets(cost_bullets(answers.numpy_costs(grad.cost.rows)))]
    return blocks
