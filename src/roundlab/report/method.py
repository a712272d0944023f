"""The method section: the protocol every number of the report rests on, written from what the
result files record (protocol.py), so it cannot drift from the runs: early stopping and the
epoch budget, the learning-rate grid and the trials, the selection on val, the seeds and the
smallest difference each table could detect, the convergence flag, the oracle and degenerate
rows."""

from __future__ import annotations

from typing import Any

from roundlab.report.datasets import ranges
from roundlab.report.document import Block, Bullets, Heading, Paragraph
from roundlab.report.protocol import Protocol, TablePower
from roundlab.report.stats import ALPHA, POWER
from roundlab.report.verdicts import reference_stop
from roundlab.sweep.rates import BOUNDS, FACTOR

MDD_FORMULA = "(t_{1−α/2, df} + t_{power, df}) · sqrt(s1²/n1 + s2²/n2), df = n1 + n2 − 2"


def _numbers(values: tuple[Any, ...]) -> str:
    return ", ".join(f"{v:g}" for v in values) or "not recorded"


def _span(values: tuple[int, ...]) -> str:
    """``3``, or ``1 to 3``."""
    return f"{values[0]}" if values[0] == values[-1] else f"{values[0]} to {values[-1]}"


def _stopping(setting: dict[str, Any]) -> str:
    if not setting.get("enabled", False):
        return "no early stopping (every run trains its whole budget)"
    return (
        f"early stopping on {setting.get('monitor', '?')} (patience "
        f"{setting.get('patience', '?')}, min_delta {setting.get('min_delta', 0)}), the best "
        "epoch's weights restored"
    )


def _training(p: Protocol) -> str:
    stopping = "; ".join(_stopping(s) for s in p.early_stopping) or "early stopping not recorded"
    if not p.epochs:
        budget = "the epoch budget is not recorded"
    elif len(p.epochs) == 1:
        budget = f"one maximum budget of {p.epochs[0]} epochs for every approach"
    else:
        budget = f"maximum budgets of {_numbers(p.epochs)} epochs (they differ between runs)"
    if p.epoch_factors and p.epoch_factors != (1,):
        budget += (
            f", which a run still improving at its end extends, by the same rule, to "
            f"{_numbers(p.epoch_factors)} times as many"
        )
    return f"**Training.** Every run: {stopping}; {budget}."


def _tuning(p: Protocol) -> str:
    rates = p.rates_per_configuration
    if not rates:
        return "**Selection on val.** No configuration has a result."
    equal = (
        f"every configuration was trained at all {rates[0]} of them, every seed: the same "
        "number of learning-rate trials for every approach"
        if len(rates) == 1 and rates[0] == len(p.grid)
        else f"configurations were trained at {_span(rates)} of them (the sweep adds the rates "
        "beyond an edge a configuration's choice sat at; a rate whose runs left no result file "
        "is missing)"
    )
    counts = {n for ns in p.trials.values() for n in ns}
    trials = (
        f"every family chose its row among the same number of trials, {counts.pop()}"
        if len(counts) == 1
        else "the trials each family chose its row among (knob values × learning rates): "
        + ", ".join(f"{f} {'/'.join(map(str, ns))}" for f, ns in p.trials.items())
    )
    return (
        f"**Selection on val.** Learning-rate grid: {_numbers(p.grid)}; {equal}. Per "
        "configuration the rate with the highest mean val exact match is kept (ties to the "
        "lower val MAE), then per family the knob value the same way; "
        f"{trials}. The classical references are deterministic fits, made once at no learning "
        "rate: their values are exact, compared with an interval as fixed numbers. Test and "
        "extrapolation numbers steer no choice: they are only reported."
    )


def _edges(p: Protocol) -> list[Block]:
    """The headline rows whose learning rate may be beaten outside the grid, one line per
    dataset."""
    if not p.at_grid_edge:
        return [
            Paragraph(
                "No headline row chose a rate at an edge of the grid that beat the rate next to it."
            )
        ]
    by_dataset: dict[str, list[str]] = {}
    for c in p.at_grid_edge:
        by_dataset.setdefault(c.dataset, []).append(f"{c.title} ({c.learning_rate:g})")
    return [
        Paragraph(
            f"**Rate at an edge of the grid.** {_rows_are(len(p.at_grid_edge))} still at "
            "an edge of their rates after the sweep's rate extensions (at most "
            f"`rate_extensions` ×{FACTOR:g} steps per side, rates within [{BOUNDS[0]:g}, "
            f"{BOUNDS[1]:g}]) and better on val than the rate next to it, so a better rate may "
            "lie beyond (raise `rate_extensions` or widen `learning_rates` to check):"
        ),
        Bullets(tuple(f"{d}: {', '.join(rows)}" for d, rows in by_dataset.items())),
    ]


def _rows_are(n: int) -> str:
    return "1 headline row is" if n == 1 else f"{n} headline rows are"


def _datasets(p: Protocol) -> list[Block]:
    """Each dataset's labels per split, a warning for test labels training never saw, and how
    selection was done where the runs record it; nothing when no run records either."""
    if not p.datasets:
        return []
    lines = []
    for facts in p.datasets:
        parts = [f"{split} {ranges(labels)}" for split, labels in facts.labels.items()]
        said = ["labels " + "; ".join(parts)] if parts else []
        said += [f"selection: {' and '.join(facts.selection)}"] if facts.selection else []
        text = f"{facts.dataset}: " + "; ".join(said)
        if facts.unseen:
            text += (
                f". **Warning**: test labels {ranges(facts.unseen)} never occur in training "
                "(classification and ordinal heads cannot predict them)"
            )
        lines.append(text + ".")
    return [
        Paragraph("**Labels and selection per dataset** (as the runs recorded them):"),
        Bullets(tuple(lines)),
    ]


def _power_line(t: TablePower) -> str:
    seeds = f"{_span(t.seeds)} seeds per row"
    parts = []
    for w in t.winners:
        if w.runner_up is None:
            parts.append(f"{w.column.title}: no comparison")
        elif w.detectable is None:
            parts.append(f"{w.column.title}: unavailable (a side has one seed)")
        else:
            parts.append(
                f"{w.column.title} {w.detectable:.3f} ({w.leader.label} vs {w.runner_up.label})"
            )
    return f"{t.dataset} ({seeds}): " + "; ".join(parts) + "."


def _convergence(p: Protocol) -> list[Block]:
    intro = (
        "**Convergence.** A configuration is not converged when any of its seeds kept the last "
        "epoch of the budget (its monitored value was still improving). It is marked in its "
        "table, and no verdict is given in a comparison it takes part in (leader against "
        "runner-up, or the pair compared); the other comparisons stand. A reference whose "
        "fit did not converge (statsmodels' optimiser, or LightGBM at its tree cap) is left "
        "out of every comparison and never recommended."
    )
    if not p.unconverged:
        return [Paragraph(intro + " Every configuration converged.")]
    rows = tuple(
        f"{c.dataset}: {c.title}: {reference_stop(c)}"
        if c.is_reference
        else f"{c.dataset}: {c.title}, learning rate {c.learning_rate:g}: {k} of "
        f"{len(c.finished)} seeds at the budget of {c.epochs} epochs"
        for c, k in p.unconverged
    )
    return [Paragraph(intro + f" Not converged ({len(rows)}):"), Bullets(rows)]


def _rows(p: Protocol) -> str:
    degenerate = ", ".join(f"{c.dataset}: {c.title}" for c in p.degenerate) or "none"
    return (
        "**Oracle and degenerate rows.** Each synthetic dataset's table has an oracle row: the "
        "test exact match and MAE of the Bayes predictor, from the noise-free rule or the known "
        "noise, and every row its gap to it. A row whose mean val exact match is not above the "
        "constant baseline's (the training median) is degenerate: it keeps its row, marked, but "
        f"is never named the better or best in any answer. Degenerate rows: {degenerate}."
    )


def method_blocks(p: Protocol) -> list[Block]:
    return [
        Heading("Method", 2),
        Paragraph(_training(p)),
        Paragraph(_tuning(p)),
        *_edges(p),
        *_datasets(p),
        Paragraph(
            "**Seeds and detectable difference.** Intervals are 95% confidence intervals of the "
            "mean over seeds (t distribution); with one seed there is none. A column has a "
            "winner only when the leader's interval does not overlap the runner-up's. The "
            "smallest difference a comparison could detect is "
            f"{MDD_FORMULA} (two-sided α = {ALPHA:g}, power {POWER:g}; the two-sample power "
            "approximation, Cohen 1988), from the sample sds s of the leader and the runner-up. "
            "Per table, between the leader and runner-up of each column:"
        ),
        Bullets(tuple(_power_line(t) for t in p.tables) or ("No datasets with results.",)),
        *_convergence(p),
        Paragraph(_rows(p)),
    ]
