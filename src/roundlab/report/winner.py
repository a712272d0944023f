"""Who leads one column of a comparison, and whether the lead is clear."""

from __future__ import annotations

import math
from dataclasses import dataclass

from roundlab.report.selection import Column, Configuration
from roundlab.report.stats import detectable_difference


@dataclass(frozen=True)
class Winner:
    """The outcome of one column: the leader, the runner-up, whether the lead is clear, the rows
    of the comparison (leader and runner-up) that did not converge (either one refuses the
    verdict), the smallest difference between leader and runner-up the seeds could have
    detected (None when unavailable), and the references left out because statsmodels'
    optimiser did not converge (said in a note, never a block)."""

    column: Column
    leader: Configuration | None
    runner_up: Configuration | None
    clear: bool
    unconverged: tuple[Configuration, ...] = ()
    detectable: float | None = None
    left_out: tuple[Configuration, ...] = ()

    @property
    def refused(self) -> bool:
        return bool(self.unconverged)


def winner(rows: list[Configuration], column: Column) -> Winner:
    """The leader by mean; ``clear`` only when its interval overlaps no other row's (a row
    further down with a wide interval may overlap it when the runner-up does not) and the
    leader and runner-up converged. A network that did not converge blocks only the comparison
    it takes part in (as leader or runner-up), never a column it trails in. A reference whose fit
    did not converge is left out of the column: its numbers are no fit's, so it neither leads nor
    blocks.

    One row with a value has no runner-up and is never a clear winner: there is nothing it beat.
    """
    stalled = [row for row in rows if row.is_reference and not row.converged]
    kept = [row for row in rows if not any(row is s for s in stalled)]
    scored = [(row, row.metric(column.split, column.metric)) for row in kept]
    scored = [(row, iv) for row, iv in scored if iv.n > 0 and math.isfinite(iv.mean)]
    scored.sort(key=lambda item: -item[1].mean if column.higher_is_better else item[1].mean)
    left_out = tuple(row for row in stalled if row.metric(column.split, column.metric).n)
    if not scored:
        return Winner(column, None, None, False, left_out=left_out)
    compared = [row for row, _ in scored[:2]]
    unconverged = tuple(row for row in compared if not row.converged)
    if len(scored) == 1:
        return Winner(column, scored[0][0], None, False, unconverged, left_out=left_out)
    (lead, lead_iv), (second, second_iv) = scored[0], scored[1]
    clear = lead_iv.mean != second_iv.mean and not any(lead_iv.overlaps(iv) for _, iv in scored[1:])
    mdd = detectable_difference(lead_iv, second_iv)
    return Winner(column, lead, second, clear and not unconverged, unconverged, mdd, left_out)
