"""The section that opens the report: which approach to use per dataset and headline column,
the rows as good as it and those clearly worse (computed in recommendation.py), with the rule
in one paragraph and the exceptions (a row clearly better on test than the val choice, rows left
out) in notes under the table."""

from __future__ import annotations

from roundlab.report.cells import cell
from roundlab.report.document import Block, Bullets, Heading, Paragraph, Table
from roundlab.report.recommendation import CANNOT_EXTRAPOLATE, VAL, Recommendation
from roundlab.report.selection import Configuration

HEADER = ("dataset", "metric", "use (its value)", "as good", "clearly worse")
# Marks a recommendation chosen on the split it reports (extrapolation has no val split).
ON_ITS_OWN_SPLIT = "‡"
RULE = (
    "How to read it: each family's row is already chosen on val (section 1). Among the "
    "converged rows that are neither degenerate nor controls, **use** is the one best on the "
    "same metric of the validation split (val exact match, val MAE), shown with its test "
    "mean ± 95% CI; **as good**: rows whose test interval overlaps it; **clearly worse**: the "
    "rest. Extrapolation has no validation split: its choice (" + ON_ITS_OWN_SPLIT + ") is the "
    "leader on the extrapolation split itself among the approaches that can predict outside "
    "the training range, so it is a best case, not a tested choice."
)


def short(cfg: Configuration) -> str:
    """``sigmoid_round``, ``ordinal · corn``, ``ordered_logit (ref.)``: a name for a list."""
    return f"{cfg.family} (ref.)" if cfg.is_reference else cfg.family


def _names(configs: tuple[Configuration, ...]) -> str:
    return ", ".join(short(c) for c in configs) or "—"


def _use(rec: Recommendation) -> str:
    if rec.recommended is None:
        return "no candidate"
    cfg = rec.recommended
    mark = "" if rec.chosen_on == VAL else f" {ON_ITS_OWN_SPLIT}"
    setting = f" {cfg.setting}" if cfg.params else ""
    value = cell(cfg.metric(rec.column.split, rec.column.metric))
    return f"**{short(cfg)}**{setting}{mark} ({value})"


def _row(rec: Recommendation) -> tuple[str, ...]:
    return (rec.dataset, rec.column.title, _use(rec), _names(rec.as_good), _names(rec.worse))


def _better(rec: Recommendation) -> list[str]:
    if not rec.better:
        return []
    return [
        f"{rec.dataset}, {rec.column.title}: {_names(rec.better)} clearly better on test than "
        f"the val choice {short(rec.recommended)}"
    ]


def left_out(dataset: str, recs: list[Recommendation]) -> list[str]:
    """One note per dataset naming its rows left out and why; rows that cannot extrapolate are
    left out of extrapolation by construction and not repeated."""
    seen: dict[str, list[Configuration]] = {}
    for rec in recs:
        for cfg, why in rec.left_out:
            if why != CANNOT_EXTRAPOLATE and all(c is not cfg for c in seen.get(why, [])):
                seen.setdefault(why, []).append(cfg)
    if not seen:
        return []
    parts = [f"{_names(tuple(cs))} ({why})" for why, cs in seen.items()]
    return [f"{dataset}: left out, never recommended: " + "; ".join(parts)]


def recommendation_blocks(recs: list[Recommendation]) -> list[Block]:
    """The table, the rule and the notes."""
    datasets = list(dict.fromkeys(r.dataset for r in recs))
    notes = [n for rec in recs for n in _better(rec)]
    notes += [n for d in datasets for n in left_out(d, [r for r in recs if r.dataset == d])]
    blocks: list[Block] = [
        Heading("Recommendation", 2),
        Table(HEADER, tuple(_row(r) for r in recs) or (("—",) * len(HEADER),)),
        Paragraph(RULE),
    ]
    return blocks + ([Bullets(tuple(notes))] if notes else [])
