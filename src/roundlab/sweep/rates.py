"""Which learning rate a configuration keeps, and when its grid grows outward: the one rule the
sweep (:mod:`roundlab.sweep.extend`) and the report (:mod:`roundlab.report.tuning`) both use.

A configuration (dataset, approach, method, activation, parameters) is trained at several rates,
every seed. Its :class:`Trial` at one rate holds the per-seed val scores of its finished runs.
:func:`choose` keeps the rate with the highest mean val exact match over finished seeds, ties to
the lower mean val MAE, then to the lower rate (a rate with no finished seed scores worst); the
choice is *at an edge* when it is the lowest or highest of two or more rates and strictly better
on val than the rate next to it (a tie says nothing about the rates beyond).

At an edge the sweep trains the next rate outward, :data:`FACTOR` times the edge or the edge
divided by it (:func:`outward`, rounded to :data:`SIGNIFICANT` significant digits so that the
Hydra override, the ``lr=`` path segment and the float read back are the same number), and
chooses again, until the choice is interior or a bound is hit (:func:`next_rate`): at most
``rate_extensions`` rates beyond the profile's grid on each side, and rates within
:data:`BOUNDS`. A choice that hits a bound stays at its edge, and the report says so.
Imports only the result files' module: the sweep's planning process and the report
read it without TensorFlow.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from roundlab.results import RunResult

# One x3 step: the usual spacing of a learning-rate grid (1e-3, 3e-3, 1e-2, ...).
FACTOR = 3.0
# Below 1e-5 Adam barely moves a small MLP in a few hundred epochs; above 0.3 it diverges: no
# extension goes beyond.
BOUNDS = (1e-5, 0.3)
# The profile key's default: up to two x3 steps (one x9 span) per side.
DEFAULT_EXTENSIONS = 2
# What a rate is chosen on: the validation split's exact match, ties to its MAE.
SPLIT, METRIC, TIE_METRIC = "val", "exact_match", "mae"
# The digits of `%g`, which writes the rate into the override and the result path.
SIGNIFICANT = 6


def _mean(values: Iterable[float | None]) -> float:
    finite = [float(v) for v in values if v is not None and math.isfinite(v)]
    return math.fsum(finite) / len(finite) if finite else math.nan


@dataclass(frozen=True)
class Trial:
    """A configuration at one learning rate: ``val_exact_match`` and ``val_mae`` hold one value
    per finished seed (None where a run lacks it); failed seeds are left out."""

    rate: float
    val_exact_match: tuple[float | None, ...] = ()
    val_mae: tuple[float | None, ...] = ()

    @classmethod
    def of(cls, rate: float, runs: Iterable[RunResult]) -> Trial:
        """The trial of the result files ``runs`` (every seed at ``rate``; failed ones ignored)."""
        scores = [r.metrics.get(SPLIT, {}) for r in runs if r.ok]
        return cls(
            rate, tuple(s.get(METRIC) for s in scores), tuple(s.get(TIE_METRIC) for s in scores)
        )

    @property
    def score(self) -> tuple[float, float]:
        """Smaller is better: (−mean val exact match, mean val MAE); missing means sort last."""
        em, mae = _mean(self.val_exact_match), _mean(self.val_mae)
        return (-em if math.isfinite(em) else math.inf, mae if math.isfinite(mae) else math.inf)


@dataclass(frozen=True)
class Choice:
    """The rate kept; ``edge`` is -1 (lowest rate, better than the next one up), +1 (highest,
    better than the next one down) or 0 (interior, tied with its neighbour, or a single rate)."""

    rate: float
    edge: int


def choose(trials: Sequence[Trial]) -> Choice:
    """The rate best on val among ``trials`` (at least one) and whether it sits at an edge."""
    if not trials:
        raise ValueError("choosing a learning rate needs at least one trial. Received: none")
    ordered = sorted(trials, key=lambda t: t.rate)
    best = min(ordered, key=lambda t: t.score)  # min keeps the first, lowest rate, of a tie
    if len(ordered) < 2 or best not in (ordered[0], ordered[-1]):
        return Choice(best.rate, 0)
    side = -1 if best is ordered[0] else 1
    neighbour = ordered[1] if side < 0 else ordered[-2]
    return Choice(best.rate, side if best.score < neighbour.score else 0)


def outward(rate: float, side: int) -> float:
    """The next rate beyond ``rate`` on ``side`` (-1 down, +1 up): one :data:`FACTOR` step,
    rounded to :data:`SIGNIFICANT` digits (0.01 x 3 is 0.03, not 0.030000000000000002)."""
    step = rate * FACTOR if side > 0 else rate / FACTOR
    return float(f"{step:.{SIGNIFICANT}g}")


def ladder(grid: Sequence[float], extensions: int) -> list[float]:
    """Every rate an extension could reach from ``grid``: up to ``extensions`` steps beyond its
    lowest and its highest rate, within :data:`BOUNDS`."""
    out = []
    for side, start in ((-1, min(grid)), (1, max(grid))):
        rate = start
        for _ in range(extensions):
            rate = outward(rate, side)
            if not BOUNDS[0] <= rate <= BOUNDS[1]:
                break
            out.append(rate)
    return out


def next_rate(trials: Sequence[Trial], grid: Sequence[float], extensions: int) -> float | None:
    """The rate to train next for a configuration whose ``trials`` were run (the profile's
    ``grid`` and the extensions so far), or None: the choice is not at an edge, its side already
    holds ``extensions`` rates beyond ``grid``, or the next rate leaves :data:`BOUNDS`."""
    choice = choose(trials)
    if not choice.edge:
        return None
    edge = max(grid) if choice.edge > 0 else min(grid)
    beyond = [t for t in trials if (t.rate - edge) * choice.edge > 0]
    rate = outward(choice.rate, choice.edge)
    if len(beyond) >= extensions or not BOUNDS[0] <= rate <= BOUNDS[1]:
        return None
    return rate
