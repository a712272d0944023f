"""The study's answer in the terminal: the report's recommendation for each headline metric
(:mod:`roundlab.report.recommendation`, the objects behind the report's opening table), one
line each, then the report's note of the rows never recommended and why (not converged,
degenerate), so that a row missing from the lines is accounted for.

::

    test exact match: use sigmoid_round steepness=10 (0.512 ± 0.021); as good: regression,
    ordinal · corn; clearly worse: classification, poisson
    grades: left out, never recommended: classification (not converged)

The rows are computed from the result files by the report's own functions (read, group, tune,
headline, recommend), so the lines and the report's table cannot disagree.
"""

from __future__ import annotations

from pathlib import Path

from roundlab import results as results_io
from roundlab.report.cells import cell
from roundlab.report.headline import headline
from roundlab.report.recommendation import VAL, Recommendation, recommendations
from roundlab.report.recommendation_sections import ON_ITS_OWN_SPLIT, left_out, short
from roundlab.report.selection import Configuration, group
from roundlab.report.tuning import tune_groups


def recommended(results_dir: Path) -> list[Recommendation]:
    """Every dataset's recommendations, in the report's order."""
    groups = tune_groups(group(results_io.read_all(Path(results_dir))))
    return [r for d, configs in groups.items() for r in recommendations(headline(d, configs))]


def _names(configs: tuple[Configuration, ...]) -> str:
    return ", ".join(short(c) for c in configs) or "none"


def line(rec: Recommendation) -> str:
    """``<metric>: use X (mean ± 95% CI); as good: …; clearly worse: …`` and, when the val
    choice missed one, ``clearly better on test: …``."""
    if rec.recommended is None:
        why = "; ".join(f"{short(c)} {reason}" for c, reason in rec.left_out) or "no finished run"
        return f"{rec.column.title}: no candidate ({why})"
    best = rec.recommended
    setting = f" {best.setting}" if best.params else ""
    mark = "" if rec.chosen_on == VAL else f" {ON_ITS_OWN_SPLIT} chosen on this split"
    value = cell(best.metric(rec.column.split, rec.column.metric))
    # a deterministic fit's cell already carries its brackets: "0.367 (deterministic)"
    value = value if value.endswith(")") else f"({value})"
    text = (
        f"{rec.column.title}: use {short(best)}{setting} {value}{mark}; "
        f"as good: {_names(rec.as_good)}; clearly worse: {_names(rec.worse)}"
    )
    return text + (f"; clearly better on test: {_names(rec.better)}" if rec.better else "")


def lines(recs: list[Recommendation]) -> list[str]:
    """One :func:`line` per recommendation, then each dataset's rows left out (the report's
    note, in its words)."""
    datasets = list(dict.fromkeys(r.dataset for r in recs))
    notes = [n for d in datasets for n in left_out(d, [r for r in recs if r.dataset == d])]
    return [line(rec) for rec in recs] + notes
