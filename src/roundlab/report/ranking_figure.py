"""The critical-difference diagram of the cross-dataset ranking (Demšar 2006, section 3.2.4),
drawn by ``scikit_posthocs.critical_difference_diagram``: one panel per ranked metric, each
approach at its average rank (1, the best, on the left), a bar joining the approaches the
post-hoc test cannot tell apart, and the critical difference drawn above the axis."""

from __future__ import annotations

from pathlib import Path

import scikit_posthocs

from roundlab.report.plotting import new_figure, save
from roundlab.report.ranking import Ranking

# The report shows a figure at its own size up to 11 inches at 100 dpi, so 10-point labels
# stay about 14 px tall on screen; the labels (up to "(12.50) lightgbm · multiclass
# (reference)", about 3.3 inches) sit beside the axis, which keeps the middle 38% of the width.
WIDTH = 11.0
AXIS_LEFT, AXIS_RIGHT = 0.31, 0.69
LABEL_SIZE = 10
UNIT = 0.27  # inches per diagram row (one label, one bar)
ABOVE = 2.1  # rows above the axis: the rank ticks, then the critical-difference bar
TITLE = 0.4  # inches for a panel's title
HEADER = 0.5  # inches for the figure's title
# Dark enough to read as text on white; an approach keeps its colour in every panel.
COLOURS = (
    *(f"tab:{c}" for c in ("blue", "orange", "green", "red", "purple", "brown", "pink")),
    *(f"tab:{c}" for c in ("gray", "olive", "cyan")),
    "black",
    "navy",
    "darkgoldenrod",
    "darkred",
)


def _panel(ax, ranking: Ranking, colours: dict[str, str]) -> float:
    """Draw one diagram; returns how many rows it spans below the axis."""
    k = len(ranking.ranks)
    drawn = scikit_posthocs.critical_difference_diagram(
        ranking.ranks,
        ranking.significance(),
        alpha=ranking.alpha,
        ax=ax,
        label_fmt_left="{label} ({rank:.2f})",
        label_fmt_right="({rank:.2f}) {label}",
        label_props={"fontsize": LABEL_SIZE},
        elbow_props={"linewidth": 1.2},
        color_palette={a: colours[a] for a in ranking.ranks},
        text_h_margin=0.12,
    )
    # The library draws each bar through a set of approaches, in an order that follows
    # Python's string hashing, so the PNG bytes would change from run to run: same points,
    # left to right.
    for line in (bar for bars in drawn["crossbars"] for bar in bars):
        line.set_xdata(sorted(line.get_xdata()))
    # drawn here rather than by the library, above the rank ticks instead of across them
    start = next(iter(ranking.ranks.values()))
    ax.plot([start, start + ranking.cd], [1.35, 1.35], color="k", linewidth=2)
    ax.text(start + ranking.cd / 2, 1.6, f"CD = {ranking.cd:.2f}", ha="center", va="bottom")
    ax.set_xlim(0.8, k + 0.2)
    ax.set_xticks(range(1, k + 1))
    ax.tick_params(axis="x", labelsize=LABEL_SIZE)
    ax.grid(False)
    p = ranking.friedman.p
    friedman = f"Friedman p = {p:.3f}" if p >= 1e-3 else "Friedman p < 0.001"
    ax.set_title(
        f"{ranking.column.title}: average rank over {len(ranking.datasets)} datasets "
        f"(1 = best; {friedman})",
        loc="center",
    )
    below = min(min(line.get_ydata()) for line in drawn["elbows"])
    ax.set_ylim(below - 0.6, ABOVE)
    return ABOVE - below + 0.6


def critical_difference(rankings: list[Ranking], path: Path) -> Path | None:
    """One panel per ranking, stacked; None when there is nothing ranked."""
    if not rankings:
        return None
    fig, axes = new_figure(
        len(rankings),
        1,
        "Approaches across datasets: bars join those the Nemenyi test cannot tell apart "
        f"(α = {rankings[0].alpha:g})",
    )
    fig.set_layout_engine("none")  # the labels lie outside the axes: placed by hand below
    names = list(dict.fromkeys(a for r in rankings for a in r.ranks))
    colours = {a: COLOURS[i % len(COLOURS)] for i, a in enumerate(names)}
    spans = [_panel(ax, r, colours) * UNIT for ax, r in zip(axes[:, 0], rankings, strict=True)]
    height = HEADER + sum(span + TITLE for span in spans)
    fig.set_size_inches(WIDTH, height)
    top = height - HEADER
    for ax, span in zip(axes[:, 0], spans, strict=True):
        top -= TITLE
        ax.set_position((AXIS_LEFT, (top - span) / height, AXIS_RIGHT - AXIS_LEFT, span / height))
        top -= span
    fig.suptitle(fig.get_suptitle(), y=1 - 0.15 / height, va="top", fontsize=12)
    return save(fig, path)
