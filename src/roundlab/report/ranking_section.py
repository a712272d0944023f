"""The "Across datasets" section: one sentence per ranked metric (the best average rank, the
approaches the post-hoc test cannot separate from it, the Friedman p-value) and the
critical-difference diagram, written from :mod:`roundlab.report.ranking` (nothing here is
hand-written about the outcome)."""

from __future__ import annotations

import math
from pathlib import Path

from roundlab.report.document import Block, Bullets, Figure, Heading, Paragraph
from roundlab.report.headline import Headline
from roundlab.report.ranking import (
    POWERFUL_DATASETS,
    NoRanking,
    Ranking,
    rankings,
)
from roundlab.report.ranking_figure import critical_difference
from roundlab.report.selection import CONTROLS

HEADING = "Across datasets"
FIGURE = "ranking.png"
# Longer lists of approaches not separated from the best are counted, not named, when fewer
# are separated from it: the diagram names them all.
SHORT_LIST = 4


def _p(value: float) -> str:
    return f"p = {value:.3f}" if value >= 1e-3 else "p < 0.001"


def sentence(ranking: Ranking | NoRanking) -> str:
    """One metric's finding in one sentence (or why there is none)."""
    title = ranking.column.title[:1].upper() + ranking.column.title[1:]
    if isinstance(ranking, NoRanking):
        return f"**{title}**: no ranking: {ranking.reason}."
    ranks, f = ranking.ranks, ranking.friedman
    leaders = ranking.leaders()
    shared = f", shared with {', '.join(leaders[1:])}" if len(leaders) > 1 else ""
    text = (
        f"**{title}**: best average rank {ranking.best} ({ranks[ranking.best]:.2f} of "
        f"{len(ranks)} approaches{shared}); "
    )
    f_f = f"{f.f:.2f}" if math.isfinite(f.f) else "∞"
    friedman = f"Friedman test {_p(f.p)} (Iman–Davenport F = {f_f})"
    if not ranking.rejected:
        return (
            text + f"{friedman}: the ranks do not tell any of the {len(ranks)} approaches "
            "apart, so no post-hoc comparison is made."
        )
    others = [a for a in ranking.not_separated() if a not in leaders]
    worse = [a for a in ranks if a not in others and a not in leaders]
    after = ""
    if not worse:
        tie = "cannot separate it from any other approach"
        # Demšar's own example: the omnibus test rejects, the post-hoc test cannot say where
        after = (
            ": the ranks differ somewhere, but the post-hoc test is not powerful enough to "
            "say where"
        )
    elif not others:
        tie = "separates it from every other approach"
    elif len(others) > max(len(worse), SHORT_LIST):
        tie = f"separates it only from {', '.join(worse)}, not from the other {len(others)}"
    else:
        tie = f"cannot separate it from {', '.join(others)}, only from {', '.join(worse)}"
    nemenyi = f"the Nemenyi test (critical difference {ranking.cd:.2f} ranks)"
    return text + f"{nemenyi} {tie}; {friedman}{after}."


def _introduction(results: list[Ranking | NoRanking], headlines: dict[str, Headline]) -> str:
    datasets = sorted(headlines)
    text = (
        "Each approach's best configuration on val is ranked on each dataset's test split "
        "(1 = best; ties share their average rank) and its ranks averaged over the "
        f"{len(datasets)} datasets ({', '.join(datasets)}); then the Friedman test and, where "
        "it rejects, the Nemenyi post-hoc test (α = 0.05; Demšar 2006; scikit-posthocs). "
        f"The controls ({', '.join(CONTROLS)}) are not ranked."
    )
    dropped = dict(d for r in results for d in r.dropped)
    if dropped:
        text += " Left out, as not on every dataset: " + "; ".join(
            f"{a} (none on {', '.join(missing)})" for a, missing in dropped.items()
        )
        text += "."
    if 0 < len(datasets) < POWERFUL_DATASETS:
        text += (
            f" With {len(datasets)} datasets (Demšar asks for more than {POWERFUL_DATASETS}) "
            "these tests have little power: an approach they cannot separate from the best "
            "is not shown to be as good, only not shown to be worse."
        )
    return text


def ranking_blocks(headlines: dict[str, Headline], figdir: Path) -> list[Block]:
    """The section: heading, introduction, one sentence per metric, the diagram."""
    results = rankings(headlines)
    blocks: list[Block] = [
        Heading(HEADING, 2),
        Paragraph(_introduction(results, headlines)),
        Bullets(tuple(sentence(r) for r in results)),
    ]
    png = critical_difference([r for r in results if isinstance(r, Ranking)], figdir / FIGURE)
    if png is not None:
        blocks.append(
            Figure(
                png,
                "Average rank of each approach over the datasets (1 = best), per metric. "
                "A bar joins approaches the Nemenyi test cannot tell apart; CD: the "
                "critical difference, the smallest gap in average rank it can call.",
            )
        )
    return blocks
