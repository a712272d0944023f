"""The numbers behind each short answer at the top of the report, one function per question:
in range, the knobs, extrapolation, the gradients, the numpy cost. Values only; summary.py
writes the sentences."""

from __future__ import annotations

from dataclasses import dataclass

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
from roundlab.report.stats import Interval


def compare(a: Interval, b: Interval, higher_is_better: bool) -> str:
    """How ``a`` stands against ``b``, calling a difference only when the intervals are apart."""
    if not (a.n and b.n):
        return "not comparable (missing)"
    if not (a.available and b.available):
        return "not comparable (one seed, no interval)"
    if a.overlaps(b):
        return "indistinguishable (intervals overlap)"
    return "better" if (a.mean > b.mean) == higher_is_better else "worse"


@dataclass(frozen=True)
class InRange:
    """Question 1 on one dataset: the best rounding activation against each other approach."""

    dataset: str
    rounding: Configuration | None
    against: list[tuple[str, str, str]]  # (approach, exact match verdict, MAE verdict)


def in_range(h: Headline, configs: list[Configuration]) -> InRange:
    """The best rounding configuration on val against the headline row of each approach that
    does not round; ``against`` is empty when either side has no finished run."""
    rounding = best_overall(configs, ROUNDING)
    others = [c for c in h.rows if c.approach in REFERENCE_APPROACHES]
    if rounding is None:
        return InRange(h.dataset, None, [])
    against = [
        (
            other.approach,
            compare(
                rounding.metric("test", "exact_match"), other.metric("test", "exact_match"), True
            ),
            compare(rounding.metric("test", "mae"), other.metric("test", "mae"), False),
        )
        for other in others
    ]
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


def knobs(groups: dict[str, list[Configuration]]) -> list[KnobSweep]:
    """Each activation swept over two or more finished values on at least one dataset."""
    families = {d: swept_families(configs) for d, configs in groups.items()}
    sweeps = []
    for activation, values in swept_values(groups).items():
        runs = [(d, f[activation]) for d, f in families.items() if len(f.get(activation, [])) >= 2]
        if not runs:
            continue
        best = [(d, min(members, key=selection_key).param[1]) for d, members in runs]
        zero = [
            (d, members[0].zero_grad_fraction(), members[-1].zero_grad_fraction())
            for d, members in runs
        ]
        zero = [(d, lo.mean, hi.mean) for d, lo, hi in zero if lo.n and hi.n]
        sweeps.append(KnobSweep(activation, runs[0][1][0].param[0], values, best, zero))
    return sweeps


def extrapolation(h: Headline) -> list[tuple[str, Interval]]:
    """Question 3 on one dataset: each headline row's exact match outside the training range,
    for the rows that have the split."""
    pairs = [(c.label, c.metric("extrapolate", "exact_match")) for c in h.rows]
    return [(label, iv) for label, iv in pairs if iv.n]


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
