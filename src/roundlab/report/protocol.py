"""The research protocol as the result files record it: the learning-rate grid and the trials
each family chose among, the epoch budgets and early-stopping rules, the configurations that did
not converge, the degenerate headline rows, the seeds and detectable differences of each
headline table, and each dataset's labels per split and selection method. Values only;
method.py writes the method section."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from roundlab.report.datasets import DatasetFacts, dataset_facts
from roundlab.report.headline import Headline
from roundlab.report.selection import Configuration
from roundlab.report.tuning import family_trials
from roundlab.report.winner import Winner
from roundlab.results import RunResult


@dataclass(frozen=True)
class TablePower:
    """One headline table: the fewest and most finished seeds of a row, and the winner of each
    column it shows (leader, runner-up and their detectable difference)."""

    dataset: str
    seeds: tuple[int, int]
    winners: list[Winner]


@dataclass(frozen=True)
class Protocol:
    grid: tuple[float, ...]  # every learning rate any configuration was trained at
    rates_per_configuration: tuple[int, ...]  # distinct numbers of rates a configuration got
    trials: dict[str, tuple[int, ...]]  # family -> distinct (settings × rates) over datasets
    epochs: tuple[int, ...]  # distinct maximum epoch budgets
    # distinct max_epochs_factor: a run still improving at the budget trains on to it
    epoch_factors: tuple[int, ...]
    early_stopping: tuple[dict[str, Any], ...]  # distinct early-stopping settings
    unconverged: list[tuple[Configuration, int]]  # (tuned configuration, seeds at the budget)
    degenerate: list[Configuration]  # headline rows no better than the constant baseline
    at_grid_edge: list[Configuration]  # headline rows whose rate may be beaten outside the grid
    tables: list[TablePower]
    datasets: list[DatasetFacts] = field(default_factory=list)  # labels and selection per dataset


def _trainer(runs: list[RunResult], key: str) -> list[Any]:
    values = [(r.config.get("trainer") or {}).get(key) for r in runs]
    return [v for v in values if v is not None]


def _distinct_settings(settings: list[dict[str, Any]]) -> tuple[dict[str, Any], ...]:
    unique = {tuple(sorted(s.items())): s for s in settings if isinstance(s, dict)}
    return tuple(unique[k] for k in sorted(unique, key=repr))


def _trials(groups: dict[str, list[Configuration]]) -> dict[str, tuple[int, ...]]:
    counts: dict[str, set[int]] = defaultdict(set)
    for configs in groups.values():
        for family, n in family_trials(configs).items():
            counts[family].add(n)
    return {family: tuple(sorted(n)) for family, n in sorted(counts.items())}


def _power(h: Headline) -> TablePower:
    seeds = [len(c.finished) for c in h.rows] or [0]
    shown = [w for w in h.winners if h.has_extrapolate or w.column.split != "extrapolate"]
    return TablePower(h.dataset, (min(seeds), max(seeds)), shown)


def protocol(
    runs: list[RunResult],
    groups: dict[str, list[Configuration]],
    headlines: dict[str, Headline],
) -> Protocol:
    """``groups`` are the tuned configurations per dataset (tuning.tune_groups), ``runs`` every
    result, at every learning rate."""
    configs = [c for cs in groups.values() for c in cs]
    networks = [c for c in configs if not c.is_reference]
    stuck = [
        (c, sum(r.converged is False for r in c.finished))
        for c in configs
        if c.finished and not c.converged
    ]
    return Protocol(
        # references are fitted once: no rate to tune
        grid=tuple(sorted({lr for c in networks for lr in (c.grid or (c.learning_rate,))})),
        rates_per_configuration=tuple(sorted({c.trials for c in networks})),
        trials=_trials(groups),
        epochs=tuple(sorted({int(e) for e in _trainer(runs, "epochs")})),
        epoch_factors=tuple(sorted({int(f) for f in _trainer(runs, "max_epochs_factor")})),
        early_stopping=_distinct_settings(_trainer(runs, "early_stopping")),
        unconverged=stuck,
        degenerate=[c for h in headlines.values() for c in h.rows if c.degenerate],
        at_grid_edge=[c for h in headlines.values() for c in h.rows if c.rate_at_edge],
        tables=[_power(h) for h in headlines.values()],
        datasets=dataset_facts(runs),
    )
