"""One dataset's headline: the best configuration of each family, the constant baseline, the
oracle (where the dataset has one) and the winner of each headline column (computed; the tables
are written in sections.py)."""

from __future__ import annotations

from dataclasses import dataclass

from roundlab.report.selection import CONTROLS, HEADLINE_COLUMNS, Configuration, best_per_family
from roundlab.report.stats import Interval, mean_ci
from roundlab.report.winner import Winner, winner

BASELINE_SPLITS = ("val", "test", "extrapolate")
BASELINE_METRICS = ("exact_match", "mae")
# The oracle is shown on the split the headline reports.
ORACLE_KEYS = (("test", "exact_match"), ("test", "mae"))


@dataclass(frozen=True)
class Headline:
    """One dataset's headline: the best row of each family and the column winners."""

    dataset: str
    rows: list[Configuration]
    baseline: dict[tuple[str, str], Interval]  # (split, metric) of the training-median predictor
    winners: list[Winner]  # one per HEADLINE_COLUMNS entry
    has_extrapolate: bool
    oracle: dict[tuple[str, str], float]  # (split, metric) of the Bayes predictor; {} if none

    def oracle_gap(self, cfg: Configuration) -> float | None:
        """How far ``cfg``'s mean test exact match is below the oracle's; None without one."""
        best = self.oracle.get(("test", "exact_match"))
        mean = cfg.metric("test", "exact_match").mean
        return best - mean if best is not None and mean == mean else None


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
    # A degenerate row (no better than the constant predictor in range) is no candidate in any
    # column: spiky, which can only output 0, would otherwise "win" extrapolation wherever 0
    # lies outside the training range.
    # Controls do not compete either: identity is regression under another name.
    candidates = [r for r in rows if not r.degenerate and r.activation not in CONTROLS]
    winners = [winner(candidates, column) for column in HEADLINE_COLUMNS]
    has_extrapolate = any("extrapolate" in r.metrics for r in finished)
    return Headline(dataset, rows, baseline, winners, has_extrapolate, _oracle(configs))


def _oracle(configs: list[Configuration]) -> dict[tuple[str, str], float]:
    values = {key: [c.oracle(*key) for c in configs] for key in ORACLE_KEYS}
    found = {key: [v for v in vs if v is not None] for key, vs in values.items()}
    return {key: vs[0] for key, vs in found.items() if vs}
