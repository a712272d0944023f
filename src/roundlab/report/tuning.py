"""Learning-rate tuning on the validation split: per configuration, the rate with the best
validation score among the rates it was trained at.

Every configuration (dataset, approach, activation, parameters) is trained at each rate of the
profile's grid, every seed, plus the rates the sweep added beyond an edge. The rate kept and
whether it is still at an edge come from the sweep's own rule,
:func:`roundlab.sweep.rates.choose` (highest mean val exact match over finished seeds, ties to
the lower val MAE, then to the lower rate), so the report keeps the rate the sweep extended
towards; test and extrapolation metrics are never read. A family swept over a knob thus chooses
among (knob values × rates) trials, a family without a knob among (rates).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from roundlab.report.selection import Configuration
from roundlab.sweep.rates import Trial, choose


def tune(configs: list[Configuration]) -> list[Configuration]:
    """One configuration per (dataset, approach, method, activation, parameters): the learning rate
    best on val, with ``grid`` set to every rate it was trained at. The order of ``configs`` is
    kept (first appearance of each configuration)."""
    trials: dict[tuple, list[Configuration]] = defaultdict(list)
    for cfg in configs:
        key = (
            cfg.dataset,
            cfg.approach,
            cfg.method,
            cfg.activation,
            tuple(sorted(cfg.params.items())),
        )
        trials[key].append(cfg)
    tuned = []
    for members in trials.values():
        members = sorted(members, key=lambda c: c.learning_rate)
        choice = choose([Trial.of(c.learning_rate, c.runs) for c in members])
        best = next(c for c in members if c.learning_rate == choice.rate)
        grid = tuple(c.learning_rate for c in members)
        tuned.append(replace(best, grid=grid, rate_at_edge=bool(choice.edge)))
    return tuned


def tune_groups(groups: dict[str, list[Configuration]]) -> dict[str, list[Configuration]]:
    """:func:`tune` on each dataset's configurations."""
    return {dataset: tune(configs) for dataset, configs in groups.items()}


def family_trials(configs: list[Configuration]) -> dict[str, int]:
    """Per family (classification, regression, each rounding activation) of one dataset's tuned
    configurations, how many (setting, learning rate) trials the choice of its row was made
    among; configurations whose runs all failed count too (they were tried)."""
    out: dict[str, int] = defaultdict(int)
    for cfg in configs:
        out[cfg.family] += cfg.trials
    return dict(out)
