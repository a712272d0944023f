"""One dataset's headline: the best configuration of each family, the constant baseline and the
winner of each headline column (computed; the tables are written in sections.py)."""

from __future__ import annotations

from dataclasses import dataclass

from roundlab.report.selection import (
    CONTROLS,
    HEADLINE_COLUMNS,
    Configuration,
    Winner,
    best_per_family,
    winner,
)
from roundlab.report.stats import Interval, mean_ci

BASELINE_SPLITS = ("val", "test", "extrapolate")
BASELINE_METRICS = ("exact_match", "mae")


@dataclass(frozen=True)
class Headline:
    """One dataset's headline: the best row of each family and the column winners."""

    dataset: str
    rows: list[Configuration]
    baseline: dict[tuple[str, str], Interval]  # (split, metric) of the training-median predictor
    winners: list[Winner]  # one per HEADLINE_COLUMNS entry
    has_extrapolate: bool


def headline(dataset: str, configs: list[Configuration]) -> Headline:
    rows = best_per_family(configs)
    finished = [r for c in configs for r in c.finished]
    baseline = {
        (split, metric): mean_ci(
            r.baseline.get(split, {}).get(metric) for r in finished if split in r.baseline
        )
        for split in BASELINE_SPLITS
        for metric in BASELINE_METRICS
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
    winners = [winner(candidates, column) for column in HEADLINE_COLUMNS]
    has_extrapolate = any("extrapolate" in r.metrics for r in finished)
    return Headline(dataset, rows, baseline, winners, has_extrapolate)
