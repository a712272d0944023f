"""The cross-dataset ranking: each approach's average rank over the datasets, per metric, the
Friedman test and the Nemenyi post-hoc test (Demšar 2006, "Statistical comparisons of
classifiers over multiple data sets", JMLR 7, section 3.2.2). Computed here; drawn in
ranking_figure.py, written in ranking_section.py.

Ranks. On each dataset the headline rows (the best configuration of each family on val: the
networks, every rounding activation except the controls, and the references) are ranked by
their mean over seeds on the test split, rank 1 the best (highest exact match, lowest MAE);
ties share the average of the ranks they span. An approach's score is its mean rank over the
datasets. Means equal to 9 decimals count as ties: the same predictions averaged in another
order must not be told apart by rounding noise.

Missing families. Friedman's test needs a complete table (every approach on every dataset), so
a family with no value on some dataset is dropped from the ranking rather than the dataset
(a reference that only applies to some datasets, ordered_logit say, would otherwise shrink
the ranking to the datasets it has); the section names the families left out.

The tests (N datasets, k approaches, R_j the average ranks):

- Friedman: chi2_F = 12N / (k(k+1)) · (Σ R_j² − k(k+1)²/4), and Iman and Davenport's
  F_F = (N−1)·chi2_F / (N(k−1) − chi2_F), F-distributed with k−1 and (k−1)(N−1) degrees of
  freedom. Demšar recommends F_F (chi2_F is needlessly conservative); its p-value is the one the
  report gives. Both are computed from the same average ranks as the Nemenyi test below, with
  no correction for ties (scipy.stats.friedmanchisquare corrects for ties, so on tied data it
  and the post-hoc test would disagree); on data without ties the two statistics are equal.
- Nemenyi: two approaches differ when their average ranks differ by at least the critical
  difference CD = q_α · sqrt(k(k+1) / (6N)), q_α the studentized range quantile / sqrt 2;
  the pairwise p-values come from ``scikit_posthocs.posthoc_nemenyi_friedman``. Following
  Demšar, the post-hoc test is read only when the Friedman test rejects at α: otherwise no pair
  is called different.

Why scikit-posthocs (pinned 0.17.1): it is maintained, has both the Nemenyi test and the
critical-difference diagram, and both are plain functions on a DataFrame. autorank chooses its
tests itself from normality checks (a different test on a different day of results), and
baycomp's Bayesian signed-rank test compares two approaches at a time.

Power. With fewer than :data:`MIN_DATASETS` datasets or :data:`MIN_APPROACHES` approaches there
is no ranking (one dataset ranks nothing *across* datasets; one approach has nothing to rank
against). Demšar's Friedman test relies on a chi-square/F approximation that he recommends
from about N > 10 datasets and k > 5 approaches; with fewer than :data:`POWERFUL_DATASETS`
datasets the tests have little power, and the report says so rather than hiding it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import scikit_posthocs
import scipy.stats

from roundlab.report.headline import Headline
from roundlab.report.selection import CONTROLS, HEADLINE_COLUMNS, Column, Configuration

# The columns ranked across datasets: test exact match and test MAE.
RANKED_COLUMNS = tuple(c for c in HEADLINE_COLUMNS if c.split == "test")
ALPHA = 0.05
MIN_DATASETS = 2
MIN_APPROACHES = 2
# Below this many datasets the Friedman and Nemenyi tests have little power (Demšar 2006).
POWERFUL_DATASETS = 10
TIE_DECIMALS = 9


@dataclass(frozen=True)
class Friedman:
    """Friedman's chi2_F and Iman–Davenport's F_F with their p-values (``p`` is F_F's)."""

    chi2: float
    chi2_p: float
    f: float
    p: float


@dataclass(frozen=True)
class Ranking:
    """One metric's ranking over ``datasets``: ``ranks`` maps each approach to its average rank,
    best first; ``p_values`` are the Nemenyi test's; ``dropped`` the families left out because
    some dataset has no value for them, each with those datasets."""

    column: Column
    datasets: tuple[str, ...]
    ranks: dict[str, float]
    friedman: Friedman
    p_values: pd.DataFrame
    cd: float
    alpha: float = ALPHA
    dropped: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def best(self) -> str:
        """The approach with the lowest average rank (the first in report order on a tie)."""
        return next(iter(self.ranks))

    def leaders(self) -> tuple[str, ...]:
        """Every approach that shares the best average rank."""
        top = self.ranks[self.best]
        return tuple(a for a, r in self.ranks.items() if r == top)

    @property
    def rejected(self) -> bool:
        """The Friedman test rejects "all approaches rank alike" at ``alpha``."""
        return self.friedman.p < self.alpha

    def separated(self, a: str, b: str) -> bool:
        """The post-hoc test tells ``a`` and ``b`` apart (only after the Friedman test rejects)."""
        return self.rejected and bool(self.p_values.loc[a, b] < self.alpha)

    def not_separated(self) -> tuple[str, ...]:
        """The approaches the post-hoc test cannot tell apart from the best, best ranks first."""
        return tuple(a for a in self.ranks if a != self.best and not self.separated(self.best, a))

    def significance(self) -> pd.DataFrame:
        """The p-values as the diagram reads them (< alpha: different): Nemenyi's when the
        Friedman test rejects, otherwise 1 for every pair."""
        if self.rejected:
            return self.p_values
        return pd.DataFrame(1.0, index=self.p_values.index, columns=self.p_values.columns)


@dataclass(frozen=True)
class NoRanking:
    """Why a metric has no ranking (too few datasets or approaches)."""

    column: Column
    reason: str
    dropped: tuple[tuple[str, tuple[str, ...]], ...] = ()


def name(row: Configuration) -> str:
    """The row's name in the ranking: its table label, with the method of a reference that has
    several (one family each, like ``ordinal · corn``), so no two families share a name."""
    return f"{row.family} (reference)" if row.is_reference else row.label


def score_table(
    headlines: dict[str, Headline], column: Column
) -> tuple[pd.DataFrame, tuple[tuple[str, tuple[str, ...]], ...]]:
    """Datasets (rows, sorted) by approaches (columns, in report order) of each headline row's
    mean on ``column``, and the families dropped, each with the datasets that lack it."""
    values: dict[str, dict[str, float]] = {}
    order: list[str] = []
    for dataset, h in sorted(headlines.items()):
        for row in h.rows:
            if row.activation in CONTROLS:
                continue
            mean = row.metric(column.split, column.metric).mean
            if math.isfinite(mean):
                values.setdefault(name(row), {})[dataset] = mean
                if name(row) not in order:
                    order.append(name(row))
    datasets = sorted(headlines)
    kept = [a for a in order if len(values[a]) == len(datasets)]
    dropped = tuple(
        (a, tuple(d for d in datasets if d not in values[a])) for a in order if a not in kept
    )
    table = pd.DataFrame({a: [values[a][d] for d in datasets] for a in kept}, index=datasets)
    return table, dropped


def rank(scores: pd.DataFrame, column: Column, alpha: float = ALPHA) -> Ranking | NoRanking:
    """Rank the approaches (columns) of a complete ``scores`` table over its datasets (rows)."""
    n, k = scores.shape
    if n < MIN_DATASETS or k < MIN_APPROACHES:
        return NoRanking(
            column,
            f"a ranking needs at least {MIN_DATASETS} datasets (one dataset ranks nothing "
            f"across datasets) and {MIN_APPROACHES} approaches with a value on each; "
            f"there are {n} and {k}",
        )
    # rank 1 is the best: the library ranks ascending, so higher-is-better scores are negated
    loss = scores.round(TIE_DECIMALS) * (-1.0 if column.higher_is_better else 1.0)
    average = scipy.stats.rankdata(loss.to_numpy(), axis=1, method="average").mean(axis=0)
    order = sorted(range(k), key=lambda j: (average[j], j))
    ranks = {str(scores.columns[j]): float(average[j]) for j in order}
    p_values = scikit_posthocs.posthoc_nemenyi_friedman(loss)
    return Ranking(
        column,
        tuple(str(d) for d in scores.index),
        ranks,
        friedman(average, n),
        p_values,
        critical_difference(k, n, alpha),
        alpha,
    )


def friedman(average_ranks, n: int) -> Friedman:
    """Friedman's and Iman–Davenport's statistics from the average ranks over ``n`` datasets."""
    r = np.asarray(average_ranks, dtype=float)
    k = len(r)
    chi2 = 12.0 * n / (k * (k + 1)) * (float(np.sum(r**2)) - k * (k + 1) ** 2 / 4.0)
    chi2 = max(chi2, 0.0)  # rounding can leave -1e-15 when every rank is equal
    denominator = n * (k - 1) - chi2
    # every dataset ranks the approaches in the same order: F_F is infinite, its p-value 0
    f = (n - 1) * chi2 / denominator if denominator > 1e-12 else math.inf
    p = float(scipy.stats.f.sf(f, k - 1, (k - 1) * (n - 1))) if math.isfinite(f) else 0.0
    return Friedman(chi2, float(scipy.stats.chi2.sf(chi2, k - 1)), f, p)


def critical_difference(k: int, n: int, alpha: float = ALPHA) -> float:
    """Nemenyi's CD = q_α · sqrt(k(k+1) / (6N)), q_α = studentized range quantile / sqrt 2."""
    return q_alpha(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n))


def q_alpha(k: int, alpha: float = ALPHA) -> float:
    """The two-tailed Nemenyi critical value for ``k`` approaches (Demšar's Table 5)."""
    return float(scipy.stats.studentized_range.ppf(1.0 - alpha, k, np.inf)) / math.sqrt(2.0)


def rankings(headlines: dict[str, Headline]) -> list[Ranking | NoRanking]:
    """One ranking per :data:`RANKED_COLUMNS` entry over the datasets of ``headlines``."""
    out: list[Ranking | NoRanking] = []
    for column in RANKED_COLUMNS:
        table, dropped = score_table(headlines, column)
        out.append(replace(rank(table, column), dropped=dropped))
    return out
