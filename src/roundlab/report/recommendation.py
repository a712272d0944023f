"""Which approach to use, per dataset and headline column: the recommendation, the rows as good
as it, and the rows clearly worse (values only; recommendation_sections.py writes the table).

The rule, "choose on val, report on test", one level above the headline rows:

- Candidates: the dataset's headline rows (each family's row, already chosen on val) that are
  converged networks or converged references and are not degenerate; the controls (identity,
  hard_round) are not candidates. A network that did not converge, a reference whose fit did
  not converge, and a degenerate row (val exact match not above the constant baseline's) are
  *left out*, named with their reason and never recommended.
- Test exact match and test MAE: the recommendation is the candidate best on the same metric of
  the validation split (highest mean val exact match, ties to the lower val MAE; lowest mean val
  MAE, ties to the higher val exact match), so the test numbers steer nothing.
- Extrapolation has no validation split: the recommendation is the leader on the extrapolation
  split itself among the candidates that can predict outside the training range (classification,
  ordinal and ordered_logit cannot, by construction), and is marked as chosen on that split.
- Then, on the reported split: *as good* are the candidates whose 95% interval overlaps the
  recommendation's (a deterministic reference is a point); *clearly worse* the others that are
  worse; a candidate whose interval lies entirely on the better side is *clearly better*: the
  val choice missed it, and the report says so rather than hide it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from roundlab import approaches
from roundlab.report.headline import Headline
from roundlab.report.selection import CONTROLS, HEADLINE_COLUMNS, Column, Configuration

VAL = "val"
# Why a headline row is not a candidate, as the table says it.
NOT_CONVERGED = "not converged"
NOT_CONVERGED_REFERENCE = "its fit did not converge"
CANNOT_EXTRAPOLATE = "cannot extrapolate"
DEGENERATE = "degenerate: val exact match not above the constant baseline's"


@dataclass(frozen=True)
class Recommendation:
    """One (dataset, column): the recommended row (None when no candidate has a value), the split
    it was chosen on (``val``, or ``extrapolate`` for extrapolation), and the other candidates
    sorted into as good, clearly worse and clearly better (each in table order). ``left_out``:
    headline rows that are no candidate for a reason worth naming (not converged; cannot
    extrapolate; degenerate), with that reason."""

    dataset: str
    column: Column
    chosen_on: str
    recommended: Configuration | None
    as_good: tuple[Configuration, ...] = ()
    worse: tuple[Configuration, ...] = ()
    better: tuple[Configuration, ...] = ()
    left_out: tuple[tuple[Configuration, str], ...] = ()


def _why_left_out(cfg: Configuration, column: Column) -> str | None:
    if not cfg.converged:
        return NOT_CONVERGED_REFERENCE if cfg.is_reference else NOT_CONVERGED
    if cfg.degenerate:
        return DEGENERATE
    if column.split == "extrapolate" and approaches.confined(cfg.approach, cfg.method):
        return CANNOT_EXTRAPOLATE
    return None


def _value(cfg: Configuration, split: str, metric: str) -> float:
    mean = cfg.metric(split, metric).mean
    return mean if math.isfinite(mean) else math.nan


def _choice_key(cfg: Configuration, column: Column, split: str) -> tuple[float, float]:
    """Smaller is better: the column's metric on ``split``, then the other headline metric as
    the tie-break (exact match up, MAE down); a missing value sorts last."""
    em, mae = _value(cfg, split, "exact_match"), _value(cfg, split, "mae")
    first, second = (-em, mae) if column.metric == "exact_match" else (mae, -em)
    return (
        first if math.isfinite(first) else math.inf,
        second if math.isfinite(second) else math.inf,
    )


def recommend(h: Headline, column: Column) -> Recommendation:
    """The recommendation for one column of one dataset's headline (the rule above)."""
    chosen_on = column.split if column.split == "extrapolate" else VAL
    candidates, left_out = [], []
    for cfg in h.rows:
        if cfg.activation in CONTROLS:
            continue
        if not cfg.metric(column.split, column.metric).n:
            continue  # a row without the split: nothing to say about it here
        why = _why_left_out(cfg, column)
        if why is None:
            candidates.append(cfg)
        else:
            left_out.append((cfg, why))
    scored = [c for c in candidates if math.isfinite(_choice_key(c, column, chosen_on)[0])]
    if not scored:
        return Recommendation(h.dataset, column, chosen_on, None, left_out=tuple(left_out))
    best = min(scored, key=lambda c: _choice_key(c, column, chosen_on))  # ties: table order
    reported = best.metric(column.split, column.metric)
    as_good, worse, better = [], [], []
    for cfg in candidates:
        if cfg is best:
            continue
        iv = cfg.metric(column.split, column.metric)
        if iv.overlaps(reported):
            as_good.append(cfg)
        elif (iv.mean > reported.mean) == column.higher_is_better:
            better.append(cfg)
        else:
            worse.append(cfg)
    return Recommendation(
        h.dataset,
        column,
        chosen_on,
        best,
        tuple(as_good),
        tuple(worse),
        tuple(better),
        tuple(left_out),
    )


def recommendations(h: Headline) -> list[Recommendation]:
    """One per headline column, in column order; extrapolation only where the dataset has it."""
    shown = [c for c in HEADLINE_COLUMNS if h.has_extrapolate or c.split != "extrapolate"]
    return [recommend(h, column) for column in shown]


def best_exact_match(h: Headline) -> Configuration | None:
    """The row recommended for test exact match: ``headline.json``'s ``best``."""
    return recommend(h, HEADLINE_COLUMNS[0]).recommended
