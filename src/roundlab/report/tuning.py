"""Learning-rate tuning on the validation split: per configuration, the rate with the best
validation score among the rates it was trained at.

Every configuration (dataset, approach, activation, parameters) is trained at each rate of the
profile's grid, every seed. The rate kept is the one with the best
:func:`~roundlab.report.selection.selection_key` (highest mean val exact match over finished
seeds, ties to the lower val MAE, then to the lower rate); test and extrapolation metrics are
never read. A family swept over a knob thus chooses among (knob values × rates) trials, a family
without a knob among (rates).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from roundlab.report.selection import Configuration, selection_key


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
        best = min(members, key=selection_key)  # min keeps the first, lowest rate, of a tie
        grid = tuple(c.learning_rate for c in members)
        tuned.append(replace(best, grid=grid, rate_at_edge=_beats_inner_neighbour(best, members)))
    return tuned


def _beats_inner_neighbour(best: Configuration, members: list[Configuration]) -> bool:
    """``best`` is the lowest or highest of two or more rates and strictly better on val than
    the rate next to it (a tie says nothing about rates outside the grid)."""
    if len(members) < 2 or best not in (members[0], members[-1]):
        return False
    neighbour = members[1] if best is members[0] else members[-2]
    return selection_key(best) < selection_key(neighbour)


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
