"""The report's sections, each a function from the data to document blocks.

Section order and content follow the report specification: headline tables, sweep curves,
activation gallery, learning curves, gradient checks, failed runs, environment.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from roundlab.report import figures, gradcheck
from roundlab.report.document import Block, Bullets, Code, Figure, Heading, Paragraph, Table
from roundlab.report.selection import (
    CONTROLS,
    HEADLINE_COLUMNS,
    Config,
    best_overall,
    best_per_family,
    selection_key,
    winner,
)
from roundlab.report.stats import Interval, mean_ci
from roundlab.results import RunResult

METRIC_LABELS = {
    "exact_match": "exact match",
    "mae": "MAE",
    "rmse": "RMSE",
    "within_one": "within one",
}
SPLIT_LABELS = {"val": "val", "test": "test", "extrapolate": "extrapolation"}


@dataclass(frozen=True)
class Headline:
    """One dataset's headline: the best row of each family and the column winners."""

    dataset: str
    rows: list[Config]
    baseline: dict[tuple[str, str], Interval]
    winners: list  # list[selection.Winner], one per HEADLINE_COLUMNS entry


def headline(dataset: str, configs: list[Config]) -> Headline:
    rows = best_per_family(configs)
    finished = [r for c in configs for r in c.finished]
    baseline = {
        (split, metric): mean_ci(
            r.baseline.get(split, {}).get(metric) for r in finished if split in r.baseline
        )
        for split in ("val", "test", "extrapolate")
        for metric in ("exact_match", "mae")
    }
    # A row worse than the constant predictor in range is no candidate in any column: spiky,
    # which can only output 0, would otherwise "win" extrapolation wherever 0 lies outside the
    # training range.
    # Controls do not compete either: identity is regression under another name.
    floor = baseline[("test", "exact_match")].mean
    candidates = [
        r
        for r in rows
        if r.metric("test", "exact_match").mean > floor and r.activation not in CONTROLS
    ]
    winners = [
        winner(candidates, split, metric, higher) for split, metric, higher in HEADLINE_COLUMNS
    ]
    return Headline(dataset, rows, baseline, winners)


def _cell(iv: Interval, bold: bool = False, digits: int = 3) -> str:
    text = iv.format(digits) if iv.n else "—"
    return f"**{text}**" if bold and iv.n else text


def headline_blocks(h: Headline, has_extrapolate: bool) -> list[Block]:
    clear = {(w.split, w.metric): w.leader for w in h.winners if w.clear}
    rows = []
    for cfg in h.rows:
        cells = [cfg.label, cfg.setting, _cell(cfg.metric("val", "exact_match"))]
        for split, metric, _ in HEADLINE_COLUMNS:
            if split == "extrapolate" and not has_extrapolate:
                cells.append("no split")
                continue
            cells.append(_cell(cfg.metric(split, metric), clear.get((split, metric)) is cfg))
        cells.append(f"{len(cfg.finished)}/{len(cfg.runs)}")
        seconds = mean_ci(r.duration_s for r in cfg.finished)
        cells.append(f"{seconds.mean:.1f}" if seconds.n else "—")
        rows.append(tuple(cells))
    base = ["constant baseline (training median)", "—", _cell(h.baseline[("val", "exact_match")])]
    for split, metric, _ in HEADLINE_COLUMNS:
        base.append(
            _cell(h.baseline[(split, metric)])
            if has_extrapolate or split != "extrapolate"
            else "no split"
        )
    base += ["—", "—"]
    rows.append(tuple(base))
    header = (
        "approach",
        "setting (chosen on val)",
        "val exact match",
        "test exact match",
        "test MAE",
        "extrapolation exact match",
        "runs finished/all",
        "s per run",
    )
    verdicts = []
    for w in h.winners:
        what = f"{SPLIT_LABELS[w.split]} {METRIC_LABELS[w.metric]}"
        if w.split == "extrapolate" and not has_extrapolate:
            continue
        if w.leader is None:
            verdicts.append(f"{what}: no finished run has it.")
        elif w.runner_up is None:
            verdicts.append(f"{what}: only {w.leader.label} has a value; nothing to compare.")
        elif w.clear:
            verdicts.append(
                f"{what}: **{w.leader.label}** is best; its interval does not overlap "
                f"the runner-up's ({w.runner_up.label})."
            )
        else:
            verdicts.append(
                f"{what}: no clear winner. {w.leader.label} leads on the mean, but "
                f"its interval overlaps the runner-up's ({w.runner_up.label})."
            )
    return [
        Heading(h.dataset, 3),
        Table(
            header,
            tuple(rows),
            caption="mean ± 95% CI over seeds (t distribution). "
            "Bold: best in its column with an interval that does not overlap the "
            "runner-up's. Controls, and rows whose test exact match does not beat the "
            "constant baseline's, do not compete.",
        ),
        Bullets(tuple(verdicts)),
    ]


def sweep_blocks(dataset: str, configs: list[Config], h: Headline, figdir: Path) -> list[Block]:
    refs = {}
    for label in ("classification", "regression"):
        cfg = next((c for c in h.rows if c.approach == label), None)
        refs[label] = cfg.metric("test", "exact_match").mean if cfg else None
    refs["constant baseline"] = h.baseline[("test", "exact_match")].mean
    path = figures.sweep_curves(dataset, configs, refs, figdir / f"sweep-{dataset}.png")
    if path is None:
        return [
            Heading(dataset, 3),
            Paragraph("No activation was swept over two or more values on this dataset."),
        ]
    blocks: list[Block] = [
        Heading(dataset, 3),
        Figure(
            path,
            f"{dataset}: exact match (val, "
            "test), test MAE and the fraction of training examples with a zero "
            "output gradient, against each activation's knob.",
        ),
    ]
    rows = []
    families: dict[str, list[Config]] = {}
    for cfg in configs:
        if cfg.approach == "rounding" and cfg.param is not None and cfg.finished:
            families.setdefault(cfg.activation, []).append(cfg)
    for activation, members in sorted(families.items()):
        members.sort(key=lambda c: c.param[1])
        best = min(members, key=selection_key)
        zero = [c.zero_grad_fraction() for c in members]
        zero_text = " → ".join(f"{iv.mean:.2f}" if iv.n else "?" for iv in zero)
        rows.append(
            (
                activation,
                members[0].param[0],
                ", ".join(f"{c.param[1]:g}" for c in members),
                f"{best.param[1]:g}",
                _cell(best.metric("test", "exact_match")),
                zero_text,
            )
        )
    blocks.append(
        Table(
            (
                "activation",
                "knob",
                "values swept",
                "best on val",
                "test exact match there",
                "zero-gradient fraction along the sweep",
            ),
            tuple(rows),
        )
    )
    return blocks


def swept_values(groups: dict[str, list[Config]]) -> dict[str, list[float]]:
    """Every parameter value each activation ran with, over all datasets."""
    out: dict[str, set[float]] = {}
    for configs in groups.values():
        for cfg in configs:
            if cfg.approach == "rounding" and cfg.param is not None:
                out.setdefault(cfg.activation, set()).add(cfg.param[1])
    return {k: sorted(v) for k, v in sorted(out.items())}


GALLERY_PARAMETERLESS = ("identity", "hard_round", "ste_round", "spiky")


def gallery_blocks(swept: dict[str, list[float]], figdir: Path) -> list[Block]:
    from roundlab import activations

    x = gradcheck.GRID[(gradcheck.GRID >= -1.5) & (gradcheck.GRID <= 2.5)]
    rows = []
    for name in activations.names():
        spec = activations.spec(name)
        if spec.param is None or spec.numpy_backed:
            continue
        values = swept.get(name) or [spec.default]
        rows.append((name, [gradcheck.evaluate(name, {spec.param: v}, x) for v in values]))
    plain = [n for n in GALLERY_PARAMETERLESS if n in activations.names()]
    rows.append(("no parameter", [gradcheck.evaluate(n, {}, x) for n in plain]))
    path = figures.gallery(rows, figdir / "gallery.png")
    return [
        Figure(
            path,
            "Forward and TensorFlow gradient of each activation at the values the "
            "sweep used (the default value where it did not sweep it). sigmoid_round "
            "jumps at every integer by 2·sigmoid(−k/2); comb_round's gradient is almost "
            "zero at the integers for small σ (dead zones); sine_round's is zero outside "
            "its window.",
        )
    ]


def learning_blocks(dataset: str, configs: list[Config], figdir: Path) -> list[Block]:
    best = [
        c
        for a in ("classification", "regression", "rounding")
        if (c := best_overall(configs, a)) is not None
    ]
    path = figures.learning_curves(dataset, best, figdir / f"learning-{dataset}.png")
    if path is None:
        return [Heading(dataset, 3), Paragraph("No finished run recorded a history.")]
    names = "; ".join(f"{c.label} {c.setting if c.params else ''}".strip() for c in best)
    return [
        Heading(dataset, 3),
        Figure(
            path,
            f"{dataset}: loss per epoch for the best "
            f"configuration of each approach on val ({names}).",
        ),
    ]


@dataclass
class GradientData:
    """Everything the gradient-check section shows, computed once (the summary uses it too)."""

    checks: list[tuple[str, gradcheck.CheckRow]]
    thread: list[gradcheck.ThreadRow]
    spiky: list[gradcheck.SpikyRow]
    cost: list[gradcheck.CostRow]
    figure: Path


def gradient_data(swept: dict[str, list[float]], figdir: Path, cost: bool) -> GradientData:
    from roundlab import activations

    checks = []
    for name in activations.names():
        spec = activations.spec(name)
        base = name[: -len("_np")] if spec.numpy_backed and name.endswith("_np") else name
        values = [None] if spec.param is None else (swept.get(base) or [spec.default])
        for v in values:
            checks.append((name, gradcheck.check(name, {} if v is None else {spec.param: v})))
    ks = swept.get("sigmoid_round") or [activations.spec("sigmoid_round").default]
    ws = swept.get("sine_round") or [activations.spec("sine_round").default]
    sig_x = gradcheck.GRID[(gradcheck.GRID >= -0.5) & (gradcheck.GRID <= 2.5)]
    sig = [(k, gradcheck.evaluate("sigmoid_round", {"steepness": k}, sig_x)) for k in ks]
    sp_x = gradcheck.GRID[(gradcheck.GRID >= -0.25) & (gradcheck.GRID <= 2.25)]
    path = figures.gradient_checks(
        sig,
        gradcheck.evaluate("spiky", {}, sp_x),
        gradcheck.evaluate("spiky_np", {}, sp_x),
        figdir / "gradient-checks.png",
    )
    return GradientData(
        checks,
        gradcheck.thread_gradients(ks, ws),
        gradcheck.spiky_example(),
        gradcheck.numpy_cost() if cost else [],
        path,
    )


def gradient_blocks(data: GradientData) -> list[Block]:
    blocks: list[Block] = [
        Paragraph(
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
    ]
    rows = []
    for _, r in data.checks:
        verdict = {True: "agrees", False: "**DISAGREES**", None: "—"}[r.agrees]
        err = "—" if r.max_error is None else f"{r.max_error:.2e}"
        rows.append((r.activation, r.setting, r.reference, str(r.points), err, verdict, r.note))
    blocks.append(
        Table(
            ("activation", "setting", "reference", "points", "max |error|", "verdict", "note"),
            tuple(rows),
        )
    )
    blocks.append(
        Paragraph(
            "The second thread's hand-written gradients against TensorFlow's gradient of the same "
            "forward (points at the integers, where approx_round jumps, left out). "
            "approx_round_grad "
            "returns s·(1 − s); the derivative of floor(x) + s with s = sigmoid(k·(frac(x) − "
            "0.5)) is "
            "k·s·(1 − s), so the ratio must come out as k."
        )
    )
    blocks.append(
        Table(
            (
                "thread function",
                "setting",
                "max |thread − TensorFlow|",
                "TensorFlow / thread (median)",
                "verdict",
            ),
            tuple(
                (
                    t.function,
                    t.setting,
                    f"{t.max_error:.3g}",
                    "—" if t.ratio is None else f"{t.ratio:.4g}",
                    t.verdict,
                )
                for t in data.thread
            ),
        )
    )
    blocks.append(
        Paragraph(
            "The first thread's test: spiky on x = [0.2, 0.7, 1.2, 1.7] must give "
            "y = [0.2, 0, 0.2, 0] and dy/dx = [1, 0, 1, 0]."
        )
    )
    blocks.append(
        Table(
            ("implementation", "y", "dy/dx", "matches the thread"),
            tuple(
                (s.implementation, _vec(s.y), _vec(s.grad), "yes" if s.matches else "**NO**")
                for s in data.spiky
            ),
        )
    )
    blocks.append(
        Figure(
            data.figure,
            "Left: TensorFlow's gradient of sigmoid_round (solid) and "
            "the thread's approx_round_grad (dotted), which is k times too small. "
            "Right: spiky and its gradient, with the thread's four test points.",
        )
    )
    if data.cost:
        blocks.append(
            Paragraph(
                "What a numpy-defined activation costs: forward + backward on 1,000,000 float32 "
                "values, median of 5 after a warm-up, on this machine while the report was built "
                "(a quick measurement; bench/activations.py is the careful one). "
                "tf.numpy_function runs on the host under the GIL, so it cannot be XLA-compiled, "
                "is "
                "never placed on a GPU, and is not saved with a SavedModel."
            )
        )
        blocks.append(
            Table(
                ("activation", "mode", "median time (ms)", "note"),
                tuple(
                    (
                        c.activation,
                        c.mode,
                        "—" if c.median_ms is None else f"{c.median_ms:.1f}",
                        c.note,
                    )
                    for c in data.cost
                ),
            )
        )
    return blocks


def _vec(values: tuple[float, ...]) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def failed_blocks(results: list[RunResult], missing: list[str]) -> list[Block]:
    failed = [r for r in results if not r.ok]
    if not failed and not missing:
        return [Paragraph("None: every planned run finished.")]
    blocks: list[Block] = []
    if failed:
        by_reason: dict[str, list[RunResult]] = {}
        for r in failed:
            by_reason.setdefault(_reason(r.error), []).append(r)
        rows = []
        for reason, runs in sorted(by_reason.items(), key=lambda kv: -len(kv[1])):
            where = sorted({f"{r.dataset}/{r.approach}/{r.variant}" for r in runs})
            seeds = sorted({r.seed for r in runs})
            rows.append((", ".join(where), ", ".join(map(str, seeds)), str(len(runs)), reason))
        blocks.append(
            Paragraph(
                f"{len(failed)} of {len(results)} runs failed. hard_round is "
                "expected here: it has no gradient and is the negative control."
            )
        )
        blocks.append(Table(("configurations", "seeds", "runs", "reason"), tuple(rows)))
    if missing:
        blocks.append(
            Paragraph(
                f"{len(missing)} planned runs wrote no result file at all (the "
                "process died before it could record a failure):"
            )
        )
        blocks.append(Code("\n".join(missing)))
    return blocks


def _reason(text: str | None) -> str:
    if not text:
        return "no reason recorded"
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "no reason recorded"


def environment_blocks(env: dict[str, dict[str, str]]) -> list[Block]:
    blocks: list[Block] = []
    for title, values in env.items():
        if not values:
            continue
        blocks.append(Paragraph(f"**{title}**"))
        blocks.append(Table(("item", "value"), tuple((k, f"`{v}`") for k, v in values.items())))
    return blocks


def _compare(a: Interval, b: Interval, higher_is_better: bool) -> str:
    """How ``a`` stands against ``b``, calling a difference only when the intervals are apart."""
    if not (a.n and b.n):
        return "not comparable (missing)"
    if not (a.available and b.available):
        return "not comparable (one seed, no interval)"
    if a.overlaps(b):
        return "indistinguishable (intervals overlap)"
    return "better" if (a.mean > b.mean) == higher_is_better else "worse"


def summary_blocks(
    headlines: dict[str, Headline], groups: dict[str, list[Config]], grad: GradientData | None
) -> list[Block]:
    """The report's questions, answered from the numbers below (nothing here is hand-written
    about the outcome)."""
    q1, q2, q3 = [], [], []
    for dataset, h in headlines.items():
        rounding = best_overall(groups[dataset], "rounding")
        others = {c.approach: c for c in h.rows if c.approach in ("classification", "regression")}
        if rounding is None or not others:
            q1.append(f"{dataset}: no comparison (an approach has no finished run).")
        else:
            parts = []
            for name, other in others.items():
                em = _compare(
                    rounding.metric("test", "exact_match"),
                    other.metric("test", "exact_match"),
                    True,
                )
                mae = _compare(rounding.metric("test", "mae"), other.metric("test", "mae"), False)
                parts.append(f"against {name}: exact match {em}, MAE {mae}")
            setting = f" ({rounding.setting})" if rounding.params else ""
            q1.append(
                f"{dataset}: the best rounding activation on val, {rounding.activation}"
                f"{setting}, test exact match "
                f"{_cell(rounding.metric('test', 'exact_match'))}; " + "; ".join(parts) + "."
            )
        extra = [(c.label, c.metric("extrapolate", "exact_match")) for c in h.rows]
        extra = [(label, iv) for label, iv in extra if iv.n]
        if extra:
            q3.append(
                f"{dataset}: "
                + ", ".join(f"{label} {_cell(iv, digits=2)}" for label, iv in extra)
                + "."
            )
    for activation, values in swept_values(groups).items():
        bests, zero_ranges = [], []
        for dataset, configs in groups.items():
            members = sorted(
                (
                    c
                    for c in configs
                    if c.activation == activation
                    and c.approach == "rounding"
                    and c.param is not None
                    and c.finished
                ),
                key=lambda c: c.param[1],
            )
            if len(members) < 2:
                continue
            best = min(members, key=selection_key)
            bests.append(f"{dataset} {best.param[1]:g}")
            lo, hi = members[0].zero_grad_fraction(), members[-1].zero_grad_fraction()
            if lo.n and hi.n:
                zero_ranges.append(f"{dataset} {lo.mean:.2f} → {hi.mean:.2f}")
        if bests:
            pname = next(
                c.param[0]
                for cs in groups.values()
                for c in cs
                if c.activation == activation and c.param is not None
            )
            text = (
                f"{activation}: best {pname} on val: "
                + ", ".join(bests)
                + f" (swept {', '.join(f'{v:g}' for v in values)})"
            )
            if zero_ranges:
                text += (
                    f"; fraction of zero output gradients from {pname}={values[0]:g} to "
                    f"{values[-1]:g}: " + ", ".join(zero_ranges)
                )
            q2.append(text + ".")
    blocks: list[Block] = [
        Heading("Answers in short", 2),
        Paragraph(
            "Read off the tables and figures below; a difference is called only when the 95% "
            "intervals do not overlap."
        ),
    ]
    blocks.append(
        Paragraph(
            "**1. In range: do rounding output activations beat classification "
            "and MSE-then-round?**"
        )
    )
    blocks.append(Bullets(tuple(q1) or ("No datasets with results.",)))
    blocks.append(Paragraph("**2. The knobs: where does the gradient vanish?**"))
    blocks.append(Bullets(tuple(q2) or ("Nothing was swept.",)))
    blocks.append(
        Paragraph(
            "**3. Extrapolation: exact match on labels outside the training "
            "range** (classification cannot, by construction: it has no output "
            "for those labels)"
        )
    )
    blocks.append(Bullets(tuple(q3) or ("No dataset has an extrapolation split.",)))
    if grad is not None:
        checked = [r for _, r in grad.checks if r.agrees is not None]
        agree = [r for r in checked if r.agrees]
        wrong = [r for r in checked if not r.agrees]
        unchecked = sorted({r.activation for _, r in grad.checks if r.agrees is None})
        q4 = [
            f"{len(agree)} of {len(checked)} activation settings with a gradient agree with "
            f"their reference (without one: {', '.join(unchecked) or 'none'})"
            + (
                ": disagreeing: " + ", ".join(f"{r.activation} ({r.setting})" for r in wrong)
                if wrong
                else "."
            )
        ]
        q4 += [f"the thread's {t.function} at {t.setting}: {t.verdict}" for t in grad.thread]
        q4 += [
            f"spiky example via {s.implementation}: "
            f"{'reproduced' if s.matches else 'NOT reproduced'}"
            for s in grad.spiky
        ]
        blocks.append(Paragraph("**4. Are the hand-written gradients right?**"))
        blocks.append(Bullets(tuple(q4)))
        if grad.cost:
            by = {(c.activation, c.mode): c for c in grad.cost}
            q5 = []
            for c in grad.cost:
                if not c.activation.endswith("_np") or c.median_ms is None:
                    continue
                tf_name = c.activation[: -len("_np")]
                ref = [
                    by.get((tf_name, m)) for m in ("graph (tf.function)", "XLA (jit_compile=True)")
                ]
                ref_text = ", ".join(
                    f"{r.mode} {r.median_ms:.1f} ms (×{c.median_ms / r.median_ms:.1f})"
                    for r in ref
                    if r is not None and r.median_ms
                )
                q5.append(
                    f"{c.activation}: {c.median_ms:.1f} ms forward + backward; "
                    f"{tf_name}: {ref_text}. Not XLA-compilable."
                )
            blocks.append(Paragraph("**5. What does a numpy-defined activation cost?**"))
            blocks.append(Bullets(tuple(q5)))
    return blocks
