"""The headline table of each dataset: the best row of each family with its chosen setting and
learning rate, flags (not converged, degenerate), the constant baseline, the oracle where the
dataset has one, and a verdict per column."""

from __future__ import annotations

from roundlab.report.cells import cell
from roundlab.report.document import Block, Bullets, Heading, Table
from roundlab.report.headline import Headline
from roundlab.report.selection import HEADLINE_COLUMNS, SELECTION_COLUMN, Configuration
from roundlab.report.stats import mean_ci
from roundlab.report.verdicts import verdict

HEADLINE_HEADER = (
    "approach",
    "setting (chosen on val)",
    "learning rate (chosen on val)",
    SELECTION_COLUMN.title,
    *(column.title for column in HEADLINE_COLUMNS),
    "runs finished/all",
    "s per run",
)
ORACLE_GAP = "gap to oracle (test exact match)"
NO_SPLIT = "no split"
NOT_CONVERGED = "not converged"
DEGENERATE = "degenerate"
# A reference's row: a deterministic statsmodels or LightGBM fit, no learning rate to choose.
NOT_TUNED = "— (reference, not tuned)"


def _shown(split: str, h: Headline) -> bool:
    return h.has_extrapolate or split != "extrapolate"


def _header(h: Headline) -> tuple[str, ...]:
    """The gap to the oracle is a column only on a dataset that has an oracle."""
    if not h.oracle:
        return HEADLINE_HEADER
    return (*HEADLINE_HEADER[:-2], ORACLE_GAP, *HEADLINE_HEADER[-2:])


def _gap(h: Headline, value: float | None) -> tuple[str, ...]:
    if not h.oracle:
        return ()
    return (f"{value:.3f}" if value is not None else "—",)


def _marked(cfg: Configuration) -> str:
    """The label with its flags: not converged, degenerate (see the method section)."""
    flags = [NOT_CONVERGED] * (not cfg.converged) + [DEGENERATE] * cfg.degenerate
    return f"{cfg.label} ({', '.join(flags)})" if flags else cfg.label


def _headline_row(cfg: Configuration, h: Headline) -> tuple[str, ...]:
    clear = {w.column: w.leader for w in h.winners if w.clear}
    cells = [
        _marked(cfg),
        cfg.setting,
        NOT_TUNED if cfg.is_reference else f"{cfg.learning_rate:g}",
        cell(cfg.metric(SELECTION_COLUMN.split, SELECTION_COLUMN.metric)),
    ]
    for column in HEADLINE_COLUMNS:
        value = cfg.metric(column.split, column.metric)
        shown = _shown(column.split, h)
        cells.append(cell(value, clear.get(column) is cfg) if shown else NO_SPLIT)
    seconds = mean_ci(r.duration_s for r in cfg.finished)
    cells += _gap(h, h.oracle_gap(cfg))
    cells += [f"{len(cfg.finished)}/{len(cfg.runs)}", f"{seconds.mean:.1f}" if seconds.n else "—"]
    return tuple(cells)


def _baseline_row(h: Headline) -> tuple[str, ...]:
    cells = ["constant baseline (training median)", "—", "—"]
    for column in (SELECTION_COLUMN, *HEADLINE_COLUMNS):
        shown = _shown(column.split, h)
        cells.append(cell(h.baseline[(column.split, column.metric)]) if shown else NO_SPLIT)
    oracle = h.oracle.get(("test", "exact_match"))
    floor = h.baseline[("test", "exact_match")]
    cells += _gap(h, oracle - floor.mean if oracle is not None and floor.n else None)
    return (*cells, "—", "—")


def _oracle_row(h: Headline) -> tuple[str, ...]:
    """The Bayes predictor's test exact match and MAE; the other columns have no value."""
    cells = ["oracle (Bayes predictor)", "—", "—", "—"]
    for column in HEADLINE_COLUMNS:
        value = h.oracle.get((column.split, column.metric))
        cells.append(f"{value:.3f}" if value is not None else "—")
    return (*cells, *_gap(h, 0.0), "—", "—")


def headline_blocks(h: Headline) -> list[Block]:
    rows = [_headline_row(cfg, h) for cfg in h.rows] + [_baseline_row(h)]
    rows += [_oracle_row(h)] if h.oracle else []
    verdicts = [verdict(w) for w in h.winners if _shown(w.column.split, h)]
    oracle = (
        " Oracle: the best any predictor can do on this test split (from the noise-free rule or "
        "the known noise); the gap is its test exact match minus the row's."
        if h.oracle
        else ""
    )
    return [
        Heading(h.dataset, 3),
        Table(
            _header(h),
            tuple(rows),
            caption="mean ± 95% CI over seeds (t distribution). "
            "Bold: best in its column with an interval that does not overlap the "
            "runner-up's, both converged. Controls, and degenerate rows (val "
            "exact match not above the constant baseline's), do not compete. Not converged: a "
            "seed's best epoch was the last it could train (a reference: its fit did not "
            "converge; it is left out of every verdict). References: classical statsmodels "
            "and LightGBM fits on the same splits, deterministic and never tuned." + oracle,
        ),
        Bullets(tuple(verdicts)),
    ]
