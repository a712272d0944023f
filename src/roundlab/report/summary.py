"""The report's short answers, written from the numbers in answers.py and recommendation.py: one
or two sentences per question, pointing to the tables below, so that the section fits on one
screen (nothing here is hand-written about the outcome). The pairwise detail, with intervals
and detectable differences, stays in the headline tables (section 1)."""

from __future__ import annotations

from roundlab import approaches
from roundlab.report import answers
from roundlab.report.document import Block, Bullets, Heading, Paragraph
from roundlab.report.gradients import GradientResults
from roundlab.report.headline import Headline
from roundlab.report.recommendation import Recommendation
from roundlab.report.recommendation_sections import ON_ITS_OWN_SPLIT, short
from roundlab.report.selection import ROUNDING, Configuration

# The rows question 1 names: "classification and MSE-then-round".
QUESTION_1 = ("classification", "regression")


def _standing(text: str) -> str:
    """``better than``, ``as good as``, ``worse than`` from :func:`answers.compare`'s verdict."""
    if text in ("better", "worse"):
        return f"{text} than"
    return "as good as" if text.startswith(("indistinguishable", "tied")) else "not comparable to"


def _refusal(text: str) -> str:
    return "degenerate" if "degenerate" in text else "not converged"


def _joined(by: dict[str, list[str]]) -> str:
    """``as good as classification and regression`` or ``better than a, worse than b``."""
    return ", ".join(f"{standing} {' and '.join(names)}" for standing, names in by.items())


def in_range_bullets(items: list[answers.InRange]) -> tuple[str, ...]:
    """1. The best rounding activation on val against classification and MSE-then-round, on
    test exact match and test MAE."""
    out = []
    for item in items:
        against = [a for a in item.against if a.approach in QUESTION_1]
        if item.rounding is None or not against:
            out.append(f"{item.dataset}: no comparison (an approach has no finished run).")
            continue
        em: dict[str, list[str]] = {}
        mae: dict[str, list[str]] = {}
        for a in against:
            if a.refused:
                for by in (em, mae):
                    by.setdefault(f"no verdict ({_refusal(a.refused)}) against", []).append(
                        a.approach
                    )
                continue
            em.setdefault(_standing(a.exact_match), []).append(a.approach)
            mae.setdefault(_standing(a.mae), []).append(a.approach)
        r = item.rounding
        head = f"{item.dataset}: {r.activation}{f' ({r.setting})' if r.params else ''}"
        value = r.metric("test", "exact_match").mean
        if em == mae:
            out.append(f"{head}, {value:.2f}: {_joined(em)} on exact match and MAE.")
        else:
            mae_text = f"; MAE {_joined(mae)}" if mae else ""
            out.append(f"{head}, {value:.2f}: exact match {_joined(em)}{mae_text}.")
    return tuple(out) or ("No datasets with results.",)


def _span(values: list[float]) -> str:
    lo, hi = min(values), max(values)
    return f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}"


def knob_bullets(sweeps: list[answers.KnobSweep]) -> tuple[str, ...]:
    """2. Per swept activation: its best value on val per dataset (withheld where a value did not
    converge or the best is degenerate) and the fraction of zero output gradients from the
    lowest value to the highest, over datasets."""
    out = []
    for s in sweeps:
        withheld = dict(s.withheld)
        by_value: dict[str, list[str]] = {}
        for d, v in s.best:
            key = f"no verdict ({_refusal(withheld[d])})" if d in withheld else f"{v:g}"
            by_value.setdefault(key, []).append(d)
        best = "; ".join(f"{k} on {', '.join(ds)}" for k, ds in by_value.items())
        swept = ", ".join(f"{v:g}" for v in s.values)
        text = f"{s.activation} ({s.param} {swept}): best {best}"
        if s.zero_grad:
            lo = _span([lo for _, lo, _ in s.zero_grad])
            hi = _span([hi for _, _, hi in s.zero_grad])
            text += f"; zero output gradients {lo} → {hi}"
        out.append(text + ".")
    return tuple(out) or ("Nothing was swept.",)


def _rounding(configs: tuple[Configuration, ...]) -> list[str]:
    return [short(c) for c in configs if c.approach == ROUNDING]


def extrapolation_bullets(recs: list[Recommendation]) -> tuple[str, ...]:
    """3. Per dataset with the split: the leader on it and the rounding activations as good."""
    out = []
    for rec in recs:
        if rec.column.split != "extrapolate" or rec.recommended is None:
            continue
        value = rec.recommended.metric("extrapolate", "exact_match").mean
        rounding = _rounding(rec.as_good)
        if rec.recommended.approach == ROUNDING:
            also = f"; as good: {', '.join(short(c) for c in rec.as_good) or 'none'}"
        else:
            also = f"; rounding activations as good: {', '.join(rounding) or 'none'}"
        out.append(f"{rec.dataset}: {short(rec.recommended)} {value:.2f}{also}.")
    return tuple(out) or ("No dataset has an extrapolation split.",)


def gradient_bullets(grad: GradientResults) -> tuple[str, ...]:
    """4. The activations against their references, the hand-written gradients and the
    spiky example, one sentence each."""
    tally = answers.gradient_tally(grad.checks)
    wrong = ", ".join(f"{r.activation} ({r.setting})" for r in tally.wrong)
    out = [
        f"{tally.agree} of {tally.checked} activation settings agree with their reference"
        + (f"; disagreeing: {wrong}." if wrong else ".")
    ]
    by_function: dict[str, dict[str, list[str]]] = {}
    for t in grad.handwritten:
        by_verdict = by_function.setdefault(t.function, {})
        # the parenthesis (k = 1 explained, the ratio) is in the gradient-check table
        by_verdict.setdefault(t.verdict.split(" (")[0], []).append(t.setting)
    for function, verdicts in by_function.items():
        parts = [f"{v} at {', '.join(settings)}" for v, settings in verdicts.items()]
        out.append(f"The hand-written {function}: " + "; ".join(parts) + ".")
    missed = [s.implementation for s in grad.spiky if not s.matches]
    out.append(
        f"The spiky example is reproduced by {len(grad.spiky) - len(missed)} of "
        f"{len(grad.spiky)} implementations"
        + (f" (not by {', '.join(missed)})." if missed else ".")
    )
    return (" ".join(out),)


def cost_bullets(costs: list[answers.NumpyCost]) -> tuple[str, ...]:
    """5. Each numpy-backed activation's time against its TensorFlow twin."""
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
    recs: list[Recommendation],
) -> list[Block]:
    """The "Answers in short" section; questions 4 and 5 only when their numbers were computed."""
    in_range = [answers.in_range(h, groups[d]) for d, h in headlines.items()]
    confined = ", ".join(approaches.in_range_only())
    blocks: list[Block] = [
        Heading("Answers in short", 2),
        Paragraph(
            "A difference is called only when the 95% intervals do not overlap and both rows "
            "converged; numbers are test means. Detail: sections 1 to 5 and the Method."
        ),
        Paragraph(
            "**1. In range: does the best rounding activation (chosen on val) beat "
            "classification and MSE-then-round?**"
        ),
        Bullets(in_range_bullets(in_range)),
        Paragraph("**2. The knobs: best value on val, and where the gradient vanishes**"),
        Bullets(knob_bullets(answers.knobs(groups))),
        Paragraph(
            f"**3. Extrapolation: exact match outside the training range** ({confined} cannot, "
            f"by construction; the leader is chosen on this split, {ON_ITS_OWN_SPLIT} above)"
        ),
        Bullets(extrapolation_bullets(recs)),
    ]
    if grad is None:
        return blocks
    blocks += [Paragraph("**4. Are the hand-written gradients right?**")]
    blocks += [Bullets(gradient_bullets(grad))]
    if grad.cost:
        blocks += [Paragraph("**5. What does a numpy-defined activation cost?**")]
        blocks += [Bullets(cost_bullets(answers.numpy_costs(grad.cost.rows)))]
    return blocks
