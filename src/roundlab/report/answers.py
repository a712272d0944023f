"""The numbers behind each short answer at the top of the report, one function per question:
in range, the knobs, the gradients, the numpy cost (extrapolation: recommendation.py). Values
and verdicts only; summary.py writes the sentences.

Every answer refuses a verdict where a contender did not converge (its best epoch was the last
of the budget) and never names a degenerate configuration (val exact match not above the
constant baseline's) as the better or best one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from roundlab.report.cost import GRAPH, XLA, CostRow
from roundlab.report.gradcheck import CheckRow, tensorflow_twin
from roundlab.report.headline import Headline
from roundlab.report.selection import (
    REFERENCE_APPROACHES,
    ROUNDING,
    Configuration,
    best_overall,
    selection_key,
    swept_families,
    swept_values,
)
from roundlab.report.stats import Interval, detectable_difference
from roundlab.report.verdicts import degenerate, detectable, not_converged, tied


def compare(a: Interval, b: Interval, higher_is_better: bool) -> str:
    """How ``a`` stands against ``b``, calling a difference only when the intervals are apart;
    an overlap states the smallest difference the seeds could have detected."""
    if not (a.n and b.n):
        return "not comparable (missing)"
    if not (a.available and b.available):
        return "not comparable (one seed, no interval)"
    if tied(a, b):
        return f"tied ({a.mean:.3f} on every seed of both)"
    if a.overlaps(b):
        return f"indistinguishable (intervals overlap; {detectable(detectable_difference(a, b))})"
    return "better" if (a.mean > b.mean) == higher_is_better else "worse"


def refusal(contenders: list[Configuration]) -> str | None:
    """Why no verdict may be given between ``contenders`` (one did not converge, or one is
    degenerate), or None when a verdict may be given."""
    stuck = [c for c in contenders if not c.converged]
    if stuck:
        return not_converged(stuck)
    bad = next((c for c in contenders if c.degenerate), None)
    return degenerate(bad) if bad is not None else None


class Against(NamedTuple):
    """The best rounding configuration against one other approach's headline row."""

    approach: str  # the other row's label
    exact_match: str  # verdict on test exact match
    mae: str  # verdict on test MAE
    refused: str | None = None  # why neither verdict is given


@dataclass(frozen=True)
class InRange:
    """Question 1 on one dataset: the best rounding activation against each other approach."""

    dataset: str
    rounding: Configuration | None
    against: list[Against]


def in_range(h: Headline, configs: list[Configuration]) -> InRange:
    """The best rounding configuration on val against the headline row of each approach that
    does not round; ``against`` is empty when either side has no finished run."""
    rounding = best_overall(configs, ROUNDING)
    others = [c for c in h.rows if c.approach in REFERENCE_APPROACHES]
    if rounding is None:
        return InRange(h.dataset, None, [])
    against = []
    for other in others:
        why = refusal([rounding, other])
        if why is not None:
            against.append(Against(other.label, "", "", why))
            continue
        em = compare(
            rounding.metric("test", "exact_match"), other.metric("test", "exact_match"), True
        )
        mae = compare(rounding.metric("test", "mae"), other.metric("test", "mae"), False)
        against.append(Against(other.label, em, mae))
    return InRange(h.dataset, rounding, against)


@dataclass(frozen=True)
class KnobSweep:
    """Question 2 for one activation: its best value per dataset and how the fraction of zero
    output gradients moves from the lowest value to the highest."""

    activation: str
    param: str
    values: list[float]  # every value it ran with, over all datasets
    best: list[tuple[str, float]]  # (dataset, best value on val)
    zero_grad: list[tuple[str, float, float]]  # (dataset, at the lowest value, at the highest)
    withheld: list[tuple[str, str]]  # (dataset, why its best value is not named as the best)


def knobs(groups: dict[str, list[Configuration]]) -> list[KnobSweep]:
    """Each activation swept over two or more finished values on at least one dataset. The best
    value is withheld on a dataset where a value did not converge or the best is degenerate."""
    families = {d: swept_families(configs) for d, configs in groups.items()}
    sweeps = []
    for activation, values in swept_values(groups).items():
        runs = [(d, f[activation]) for d, f in families.items() if len(f.get(activation, [])) >= 2]
        if not runs:
            continue
        best, withheld = [], []
        for d, members in runs:
            chosen = min(members, key=selection_key)
            best.append((d, chosen.param[1]))
            why = refusal([c for c in members if not c.converged] or [chosen])
            withheld += [(d, why)] if why is not None else []
        zero = [
            (d, members[0].zero_grad_fraction(), members[-1].zero_grad_fraction())
            for d, members in runs
        ]
        zero = [(d, lo.mean, hi.mean) for d, lo, hi in zero if lo.n and hi.n]
        sweeps.append(KnobSweep(activation, runs[0][1][0].param[0], values, best, zero, withheld))
    return sweeps


@dataclass(frozen=True)
class GradientTally:
    """Question 4: how many activation settings with a gradient agree with their reference."""

    checked: int
    agree: int
    wrong: list[CheckRow]
    without_gradient: list[str]  # activations TensorFlow gives no gradient


def gradient_tally(checks: list[CheckRow]) -> GradientTally:
    checked = [r for r in checks if r.agrees is not None]
    return GradientTally(
        len(checked),
        sum(1 for r in checked if r.agrees),
        [r for r in checked if not r.agrees],
        sorted({r.activation for r in checks if r.agrees is None}),
    )


@dataclass(frozen=True)
class NumpyCost:
    """Question 5 for one numpy-backed activation: its time and its TensorFlow twin's."""

    activation: str
    median_ms: float
    twin: str
    twin_times: list[tuple[str, float, float]]  # (mode, median ms, numpy time / this time)


def numpy_costs(rows: list[CostRow]) -> list[NumpyCost]:
    """Each timed numpy-backed activation against its twin in graph mode and under XLA."""
    by = {(c.activation, c.mode): c for c in rows}
    out = []
    for c in rows:
        twin = tensorflow_twin(c.activation)
        if twin is None or c.median_ms is None:
            continue
        refs = [by.get((twin, mode)) for mode in (GRAPH, XLA)]
        times = [
            (r.mode, r.median_ms, c.median_ms / r.median_ms) for r in refs if r and r.median_ms
        ]
        out.append(NumpyCost(c.activation, c.median_ms, twin, times))
    return out
