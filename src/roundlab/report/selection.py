"""From result files to the rows of the report: configurations over seeds, best settings, winners.

A *configuration* is one (dataset, approach, activation, activation parameters) with all its
seeds. For each rounding activation the best parameter value is chosen on the validation split
(highest mean exact match, ties to the lower mean MAE) and reported on the test split, so the
test numbers never steer the choice. A row is called the best in a column only when its
confidence interval does not overlap the runner-up's; otherwise the column has no winner.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from roundlab.report.stats import Interval, mean_ci
from roundlab.results import RunResult

APPROACH_ORDER = ("classification", "regression", "rounding")
# Rounding-approach activations that are controls, not rounding surrogates: identity is
# MSE-then-round by another name, hard_round has no gradient. They keep their rows in the
# tables but never stand for "the rounding approach".
CONTROLS = ("identity", "hard_round")
SELECT_SPLIT = "val"
SELECT_METRIC = "exact_match"
# (split, metric, higher is better): the columns in which a winner is looked for.
HEADLINE_COLUMNS = (
    ("test", "exact_match", True),
    ("test", "mae", False),
    ("extrapolate", "exact_match", True),
)


@dataclass
class Config:
    """One configuration and its runs (finished and failed), seeds in ascending order."""

    dataset: str
    approach: str
    activation: str | None
    params: dict[str, float]
    runs: list[RunResult] = field(default_factory=list)

    @property
    def finished(self) -> list[RunResult]:
        return [r for r in self.runs if r.ok]

    @property
    def failed(self) -> list[RunResult]:
        return [r for r in self.runs if not r.ok]

    @property
    def param(self) -> tuple[str, float] | None:
        """The swept parameter and its value, or None for a parameterless configuration."""
        if not self.params:
            return None
        name = sorted(self.params)[0]
        return name, float(self.params[name])

    @property
    def family(self) -> str:
        """``classification``, ``regression`` or the rounding activation's name."""
        return self.activation if self.approach == "rounding" and self.activation else self.approach

    @property
    def label(self) -> str:
        if self.approach != "rounding":
            return self.approach
        control = " (control)" if self.activation in CONTROLS else ""
        return f"rounding · {self.activation}{control}"

    @property
    def setting(self) -> str:
        if not self.params:
            return "—"
        return ", ".join(f"{k}={v:g}" for k, v in sorted(self.params.items()))

    def metric(self, split: str, name: str) -> Interval:
        """The metric over finished seeds; a split the dataset lacks gives ``n == 0``."""
        return mean_ci(
            r.metrics.get(split, {}).get(name) for r in self.finished if split in r.metrics
        )

    def baseline(self, split: str, name: str) -> Interval:
        return mean_ci(
            r.baseline.get(split, {}).get(name) for r in self.finished if split in r.baseline
        )

    def zero_grad_fraction(self) -> Interval:
        return mean_ci(r.zero_grad_fraction for r in self.finished)


def group(results: list[RunResult]) -> dict[str, list[Config]]:
    """Configurations per dataset, datasets sorted, configurations in approach order then by
    activation name and parameter value."""
    by_key: dict[tuple, Config] = {}
    for r in results:
        params = {k: float(v) for k, v in (r.activation_params or {}).items()}
        key = (r.dataset, r.approach, r.activation, tuple(sorted(params.items())))
        if key not in by_key:
            by_key[key] = Config(r.dataset, r.approach, r.activation, params)
        by_key[key].runs.append(r)
    out: dict[str, list[Config]] = defaultdict(list)
    for cfg in sorted(by_key.values(), key=_order):
        cfg.runs.sort(key=lambda r: r.seed)
        out[cfg.dataset].append(cfg)
    return dict(sorted(out.items()))


def _order(cfg: Config) -> tuple:
    rank = (
        APPROACH_ORDER.index(cfg.approach)
        if cfg.approach in APPROACH_ORDER
        else len(APPROACH_ORDER)
    )
    return (
        cfg.dataset,
        rank,
        cfg.approach,
        cfg.activation or "",
        tuple(sorted(cfg.params.items())),
    )


def selection_key(cfg: Config) -> tuple[float, float]:
    """Sort key, smaller is better: (−val exact match, val MAE); missing values sort last."""
    em = cfg.metric(SELECT_SPLIT, SELECT_METRIC).mean
    mae = cfg.metric(SELECT_SPLIT, "mae").mean
    return (-em if math.isfinite(em) else math.inf, mae if math.isfinite(mae) else math.inf)


def best_per_family(configs: list[Config]) -> list[Config]:
    """For each family (classification, regression, each rounding activation) the configuration
    with the best validation score, in report order. A family whose runs all failed is left out
    (it appears among the failed runs)."""
    families: dict[str, list[Config]] = defaultdict(list)
    for cfg in configs:
        if cfg.finished:
            families[cfg.family].append(cfg)
    best = [min(members, key=selection_key) for members in families.values()]
    return sorted(best, key=_order)


def best_overall(configs: list[Config], approach: str) -> Config | None:
    """The best configuration of one approach on validation, or None if it has no finished run.
    For the rounding approach the controls (:data:`CONTROLS`) do not count."""
    members = [
        c for c in configs if c.approach == approach and c.finished and c.activation not in CONTROLS
    ]
    return min(members, key=selection_key) if members else None


@dataclass(frozen=True)
class Winner:
    """The outcome of one column: the leader, the runner-up and whether the lead is clear."""

    split: str
    metric: str
    leader: Config | None
    runner_up: Config | None
    clear: bool


def winner(rows: list[Config], split: str, metric: str, higher_is_better: bool) -> Winner:
    """The leader by mean; ``clear`` only when its interval does not overlap the runner-up's.

    One row with a value has no runner-up and is never a clear winner: there is nothing it beat.
    """
    scored = [(row, row.metric(split, metric)) for row in rows]
    scored = [(row, iv) for row, iv in scored if iv.n > 0 and math.isfinite(iv.mean)]
    scored.sort(key=lambda item: -item[1].mean if higher_is_better else item[1].mean)
    if not scored:
        return Winner(split, metric, None, None, False)
    if len(scored) == 1:
        return Winner(split, metric, scored[0][0], None, False)
    (lead, lead_iv), (second, second_iv) = scored[0], scored[1]
    clear = lead_iv.mean != second_iv.mean and not lead_iv.overlaps(second_iv)
    return Winner(split, metric, lead, second, clear)
