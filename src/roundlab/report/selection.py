"""From result files to the rows of the report: configurations over seeds, best settings, winners.

A *configuration* is one (dataset, approach, method, activation, activation parameters) with all
its seeds, trained at one learning rate; tuning.py keeps, per configuration, the rate with the best
validation score. For each rounding activation the best parameter value is chosen on the
validation split (highest mean exact match, ties to the lower mean MAE) and reported on the test
split, so the test numbers never steer the choice. A row is called the best in a column only when
its confidence interval does not overlap the runner-up's and both converged (winner.py);
otherwise the column has no winner. The classical references (statsmodels fits, roundlab.references)
are rows like any other, labelled as references: deterministic, they are never tuned.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from roundlab import approaches
from roundlab.report.stats import Interval, exact, mean_ci
from roundlab.results import RunResult
from roundlab.runs import DEFAULT_LEARNING_RATE

ROUNDING = approaches.ROUNDING
# The one order of the approaches in every table and figure of the report.
APPROACH_ORDER = approaches.names()
# The approaches the rounding activations are measured against.
REFERENCE_APPROACHES = approaches.without_activation()
# Rounding-approach activations that are controls, not rounding surrogates: identity is
# MSE-then-round by another name, hard_round has no gradient. They keep their rows in the
# tables but never stand for "the rounding approach".
CONTROLS = ("identity", "hard_round")
SPLIT_LABELS = {"val": "val", "test": "test", "extrapolate": "extrapolation"}
METRIC_LABELS = {
    "exact_match": "exact match",
    "mae": "MAE",
    "rmse": "RMSE",
    "within_one": "within one",
}


@dataclass(frozen=True)
class Column:
    """A headline column: the metric of one split, which way is better, and the key it has in
    the metrics files that ``dvc metrics show`` reads."""

    split: str
    metric: str
    higher_is_better: bool
    key: str

    @property
    def title(self) -> str:
        """``test exact match``, ``extrapolation exact match``: the table header and verdicts."""
        return f"{SPLIT_LABELS[self.split]} {METRIC_LABELS[self.metric]}"


# The setting of each family is chosen on this column, never on a reported one.
SELECTION_COLUMN = Column("val", "exact_match", True, "val_exact_match")
# The columns in which a winner is looked for, in table order.
HEADLINE_COLUMNS = (
    Column("test", "exact_match", True, "exact_match"),
    Column("test", "mae", False, "mae"),
    Column("extrapolate", "exact_match", True, "extrapolation"),
)


@dataclass
class Configuration:
    """One configuration's runs across seeds (finished and failed) at ``learning_rate``, seeds in
    ascending order. ``grid`` holds every learning rate the configuration was trained at (empty
    until tuning.py chose among them); ``rate_at_edge``: the chosen rate is the grid's smallest
    or largest and strictly better on val than the rate next to it, so a better one may lie
    outside the grid. ``method``: ``approach.method`` (ordinal: corn, coral)."""

    dataset: str
    approach: str
    activation: str | None
    params: dict[str, float]
    learning_rate: float = DEFAULT_LEARNING_RATE
    runs: list[RunResult] = field(default_factory=list)
    grid: tuple[float, ...] = ()
    rate_at_edge: bool = False
    method: str | None = None

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
        """``classification``, ``regression``, ``ordinal · corn`` (an approach and its method)
        or the rounding activation's name."""
        if self.approach == ROUNDING and self.activation:
            return self.activation
        return f"{self.approach} · {self.method}" if self.method else self.approach

    @property
    def is_reference(self) -> bool:
        """A classical reference (a statsmodels or LightGBM fit): deterministic, never tuned."""
        return self.approach in approaches.names() and approaches.get(self.approach).is_reference

    @property
    def label(self) -> str:
        if self.is_reference:
            return f"{self.family} (reference)"
        if self.approach != ROUNDING:
            return self.family
        control = " (control)" if self.activation in CONTROLS else ""
        return f"rounding · {self.activation}{control}"

    @property
    def title(self) -> str:
        """The label, followed by the setting where there is one."""
        return f"{self.label} {self.setting if self.params else ''}".strip()

    @property
    def setting(self) -> str:
        if not self.params:
            return "—"
        return ", ".join(f"{k}={v:g}" for k, v in sorted(self.params.items()))

    def metric(self, split: str, name: str) -> Interval:
        """The metric over finished seeds; a split the dataset lacks gives ``n == 0``. A
        reference's value is exact: a deterministic fit has no spread over seeds.

        Over resamples (a dataset cut R times) the seeds of one resample share its split, so
        they are not independent replicates: the interval is over the R per-resample means
        (seeds averaged within each), and a reference has the spread of its R fits."""
        values: dict[int | None, list[float]] = defaultdict(list)
        for r in self.finished:
            value = r.metrics.get(split, {}).get(name)
            if value is not None and math.isfinite(value):
                values[(r.config.get("dataset") or {}).get("resample")].append(float(value))
        if len(values) > 1:
            return mean_ci(sum(vs) / len(vs) for vs in values.values())
        iv = mean_ci(
            r.metrics.get(split, {}).get(name) for r in self.finished if split in r.metrics
        )
        return exact(iv) if self.is_reference else iv

    def zero_grad_fraction(self) -> Interval:
        return mean_ci(r.zero_grad_fraction for r in self.finished)

    @property
    def trials(self) -> int:
        """How many learning rates were tried for this configuration."""
        return len(self.grid) or 1

    @property
    def converged(self) -> bool:
        """False when any finished seed kept the budget's last epoch (still improving)."""
        return not any(r.converged is False for r in self.finished)

    @property
    def epochs(self) -> int | None:
        """The most epochs its runs could train (``trainer.epochs``, times
        ``trainer.max_epochs_factor`` under early stopping), None if unrecorded."""
        caps = [_epoch_cap(r.config.get("trainer") or {}) for r in self.runs]
        return max((c for c in caps if c is not None), default=None)

    def baseline(self, split: str, name: str) -> Interval:
        """The constant predictor's (training median) metric over finished seeds."""
        return mean_ci(r.baseline.get(split, {}).get(name) for r in self.finished)

    def oracle(self, split: str, name: str) -> float | None:
        """The Bayes predictor's metric on ``split`` (the dataset's, so one value for every run),
        None when the dataset has no oracle."""
        iv = mean_ci(
            (getattr(r, "oracle", {}) or {}).get(split, {}).get(name) for r in self.finished
        )
        return iv.mean if iv.n else None

    @property
    def degenerate(self) -> bool:
        """Mean val exact match not above the constant baseline's (or missing): such a row is
        shown but never leads a column. Judged on val, like every choice of the report, so the
        test numbers steer nothing. Without a recorded baseline only a missing value is."""
        em = self.metric("val", "exact_match").mean
        floor = self.baseline("val", "exact_match")
        return not math.isfinite(em) or (floor.n > 0 and em <= floor.mean)


def _epoch_cap(trainer: dict) -> int | None:
    """roundlab.engine.early_stopping.epoch_cap from a recorded trainer config (files written
    before ``max_epochs_factor`` existed stopped at ``epochs``)."""
    if trainer.get("epochs") is None:
        return None
    stopping = (trainer.get("early_stopping") or {}).get("enabled", True)
    return int(trainer["epochs"]) * (int(trainer.get("max_epochs_factor", 1)) if stopping else 1)


def group(results: list[RunResult]) -> dict[str, list[Configuration]]:
    """Configurations per dataset and learning rate, datasets sorted, configurations in approach
    order then by activation name, parameter value and learning rate. One configuration trained
    at several rates gives one entry per rate: tuning.tune chooses among them."""
    by_key: dict[tuple, Configuration] = {}
    for r in results:
        params = {k: float(v) for k, v in (r.activation_params or {}).items()}
        lr, method = r.key.learning_rate, r.key.method
        key = (r.dataset, r.approach, method, r.activation, tuple(sorted(params.items())), lr)
        if key not in by_key:
            by_key[key] = Configuration(
                r.dataset, r.approach, r.activation, params, lr, method=method
            )
        by_key[key].runs.append(r)
    out: dict[str, list[Configuration]] = defaultdict(list)
    for cfg in sorted(by_key.values(), key=_order):
        cfg.runs.sort(key=lambda r: r.seed)
        out[cfg.dataset].append(cfg)
    return dict(sorted(out.items()))


def _order(cfg: Configuration) -> tuple:
    rank = (
        APPROACH_ORDER.index(cfg.approach)
        if cfg.approach in APPROACH_ORDER
        else len(APPROACH_ORDER)
    )
    return (
        cfg.dataset,
        rank,
        cfg.approach,
        cfg.method or "",
        cfg.activation or "",
        tuple(sorted(cfg.params.items())),
        cfg.learning_rate,
    )


def selection_key(cfg: Configuration) -> tuple[float, float]:
    """Sort key, smaller is better: (−val exact match, val MAE); missing values sort last."""
    em = cfg.metric(SELECTION_COLUMN.split, SELECTION_COLUMN.metric).mean
    mae = cfg.metric(SELECTION_COLUMN.split, "mae").mean
    return (-em if math.isfinite(em) else math.inf, mae if math.isfinite(mae) else math.inf)


def best_per_family(configs: list[Configuration]) -> list[Configuration]:
    """For each family (classification, regression, each rounding activation) the configuration
    with the best validation score, in report order. A family whose runs all failed is left out
    (it appears among the failed runs)."""
    families: dict[str, list[Configuration]] = defaultdict(list)
    for cfg in configs:
        if cfg.finished:
            families[cfg.family].append(cfg)
    best = [min(members, key=selection_key) for members in families.values()]
    return sorted(best, key=_order)


def best_overall(configs: list[Configuration], approach: str) -> Configuration | None:
    """The best configuration of one approach on validation, or None if it has no finished run.
    For the rounding approach the controls (:data:`CONTROLS`) do not count."""
    members = [
        c for c in configs if c.approach == approach and c.finished and c.activation not in CONTROLS
    ]
    return min(members, key=selection_key) if members else None


def swept_families(
    configs: list[Configuration], *, finished: bool = True
) -> dict[str, list[Configuration]]:
    """The rounding activations run at one or more values of a parameter: activation name ->
    its configurations by ascending parameter value, activations in name order. ``finished``
    False keeps configurations whose runs all failed (they still say which values were run)."""
    families: dict[str, list[Configuration]] = {}
    for cfg in configs:
        if cfg.approach == ROUNDING and cfg.param is not None and (cfg.finished or not finished):
            families.setdefault(cfg.activation, []).append(cfg)
    return {
        name: sorted(members, key=lambda c: c.param[1])
        for name, members in sorted(families.items())
    }


def swept_values(groups: dict[str, list[Configuration]]) -> dict[str, list[float]]:
    """Every parameter value each rounding activation ran with, over all datasets."""
    out: dict[str, set[float]] = {}
    for configs in groups.values():
        for name, members in swept_families(configs, finished=False).items():
            out.setdefault(name, set()).update(c.param[1] for c in members)
    return {k: sorted(v) for k, v in sorted(out.items())}
