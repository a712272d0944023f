"""Who leads one column of a comparison, and whether the lead is clear."""

from __future__ import annotations

import math
from dataclasses import dataclass

from roundlab.report.selection import Column, Configuration
from roundlab.report.stats import detectable_difference


@dataclass(frozen=True)
class Winner:
    """The outcome of one column: the leader, the runner-up, whether the lead is clear, the rows
    compared that did not converge (any one refuses the verdict) and the smallest difference
    between leader and runner-up the seeds could have detected (None when unavailable)."""

    column: Column
    leader: Configuration | None
    runner_up: Configuration | None
    clear: bool
    unconverged: tuple[Configuration, ...] = ()
    detectable: float | None = None

    @property
    def refused(self) -> bool:
        return bool(self.unconverged)


def winner(rows: list[Configuration], column: Column) -> Winner:
    """The leader by mean; ``clear`` only when its interval does not overlap the runner-up's and
    every row with a value in the column converged.

    One row with a value has no runner-up and is never a clear winner: there is nothing it beat.
    """
    scored = [(row, row.metric(column.split, column.metric)) for row in rows]
    scored = [(row, iv) for row, iv in scored if iv.n > 0 and math.isfinite(iv.mean)]
    scored.sort(key=lambda item: -item[1].mean if column.higher_is_better else item[1].mean)
    unconverged = tuple(row for row, _ in scored if not row.converged)
    if not scored:
        return Winner(column, None, None, False)
    if len(scored) == 1:
        return Winner(column, scored[0][0], None, False, unconverged)
    (lead, lead_iv), (second, second_iv) = scored[0], scored[1]
    clear = lead_iv.mean != second_iv.mean and not lead_iv.overlaps(second_iv)
    mdd = detectable_difference(lead_iv, second_iv)
    return Winner(column, lead, second, clear and not unconverged, unconverged, mdd)
