"""The result figures: each swept activation against its knob, and learning curves. They draw
the values computed in curves.py; each function returns the PNG's path."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from roundlab.report.curves import HISTORY_EXACT_MATCH, HISTORY_LOSSES, LearningCurve, SweepCurve
from roundlab.report.plotting import (
    band,
    figure_legend,
    integer_ticks,
    new_figure,
    param_axis,
    plain_ticks,
    save,
)

HISTORY_LABELS = {
    "loss": "training",
    "val_loss": "validation",
    "exact_match": "training",
    "val_exact_match": "validation",
}
HISTORY_COLOURS = {
    "loss": "tab:blue",
    "val_loss": "tab:orange",
    "exact_match": "tab:blue",
    "val_exact_match": "tab:orange",
}
SPLIT_COLOURS = {"val": "tab:blue", "test": "tab:orange"}
REFERENCE_STYLE = {
    "classification": dict(color="tab:green", linestyle=":"),
    "regression": dict(color="tab:red", linestyle="--"),
    "constant baseline": dict(color="0.45", linestyle="-."),
}
# The values each drawn quantity can take: a fraction of examples, or an error or loss >= 0.
FRACTION = (0.0, 1.0)
NON_NEGATIVE = (0.0, math.inf)
# Sweep figure: a row per activation with these three panels, 3.5 inches each (10.5 in all).
SWEEP_PANEL = (3.5, 2.9)
# Learning curves: a row per approach, loss and exact match side by side.
LEARNING_PANEL = (4.6, 2.7)
# Inches below the title for the legend under the panels.
LEGEND = 0.6


def _span(intervals) -> tuple[float, float]:
    """The smallest and largest value the intervals reach (their means when unavailable)."""
    if not intervals:
        return 0.0, 1.0
    return min(iv.lo for iv in intervals), max(iv.hi for iv in intervals)


def _exact_match_panel(ax, curve: SweepCurve, references: dict[str, float | None]) -> None:
    """Val and test exact match, with the other approaches' test values as horizontal lines
    where they fit the scale and as a note where they would squash it."""
    splits = {"val": curve.val_exact_match, "test": curve.test_exact_match}
    for split, intervals in splits.items():
        band(ax, curve.values, intervals, SPLIT_COLOURS[split], split, bounds=FRACTION)
    lo, hi = _span([iv for intervals in splits.values() for iv in intervals if iv.n])
    lo, hi = max(lo, FRACTION[0]), min(hi, FRACTION[1])
    off_scale = []
    for label, value in references.items():
        if value is None or not math.isfinite(value):
            continue
        if lo - 0.1 <= value <= hi + 0.1:
            ax.axhline(value, label=f"{label} (test)", **REFERENCE_STYLE[label])
            lo, hi = min(lo, value), max(hi, value)
        else:
            off_scale.append(f"{label} {value:.2f}")
    # Drawing them would squash the differences between knob values; in the title, the note
    # covers no data and no legend covers it.
    # one reference a line: two on one would run into the next panel's title
    note = "\noff scale (test): " + ",\n".join(off_scale) if off_scale else ""
    ax.set_title(f"{curve.activation}: exact match{note}")
    ax.set_ylabel("exact match\n(fraction of examples)")
    pad = max(0.02, 0.1 * (hi - lo))
    # a hair beyond [0, 1] keeps a line at 0 or 1 whole without a tick past the range
    ax.set_ylim(max(-0.005, lo - pad), min(1.005, hi + pad))


def _zero_grad_panel(ax, curve: SweepCurve) -> None:
    if any(iv.n for iv in curve.zero_grad_fraction):
        band(
            ax,
            curve.values,
            curve.zero_grad_fraction,
            "tab:purple",
            "zero-gradient fraction, end of training",
            bounds=FRACTION,
        )
    else:
        ax.text(0.5, 0.5, "not recorded", transform=ax.transAxes, ha="center")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"{curve.activation}: zero gradient")
    ax.set_ylabel("fraction of\ntraining examples")


def sweep_curves(
    dataset: str, curves: list[SweepCurve], references: dict[str, float | None], path: Path
) -> Path | None:
    """Per activation swept over two or more values (rows): exact match on val and test,
    test MAE, and the fraction of training examples whose output gradient is zero, against
    the parameter, with one legend below the panels.

    ``references`` maps a label (classification, regression, constant baseline) to its test
    exact match, drawn as horizontal lines. Returns None when nothing was swept.
    """
    title = (
        f"{dataset}: rounding activations against their knob\n"
        "mean over seeds; shaded: 95% CI; hollow marker: one seed (no CI)"
    )
    curves = [c for c in curves if len(c.values) >= 2]
    if not curves:
        return None
    fig, axes = new_figure(len(curves), 3, title, SWEEP_PANEL, (0.0, 0.6 + LEGEND))
    for row, curve in zip(axes, curves, strict=True):
        _exact_match_panel(row[0], curve, references)
        band(row[1], curve.values, curve.test_mae, SPLIT_COLOURS["test"], "test", "o", NON_NEGATIVE)
        row[1].set_title(f"{curve.activation}: test MAE")
        row[1].set_ylabel("MAE (label units)")
        _zero_grad_panel(row[2], curve)
        for ax in row:
            param_axis(ax, curve.param, curve.values)
    figure_legend(fig, axes)
    return save(fig, path)


def _history(ax, curve: LearningCurve, keys: tuple[str, ...], bounds) -> tuple[bool, int]:
    """Draw the recorded ``keys`` of the history per epoch, bands clipped to ``bounds``;
    returns whether any was recorded and how many epochs got no band (:func:`band`)."""
    drawn = [key for key in keys if key in curve.history]
    unbanded = 0
    for key in drawn:
        per_epoch = curve.history[key]
        epochs = np.arange(1, len(per_epoch) + 1)
        colour, label = HISTORY_COLOURS[key], HISTORY_LABELS[key]
        unbanded += band(ax, epochs, per_epoch, colour, label, marker="", bounds=bounds)
    return bool(drawn), unbanded


def learning_curves(dataset: str, curves: list[LearningCurve], path: Path) -> Path | None:
    """Per approach (rows), the loss (left) and exact match (right, where recorded) per epoch,
    training and validation, for its best configuration, with one legend below the panels;
    None when there is no history to draw. A positive loss is drawn on a log axis; an epoch
    whose interval reaches 0 there gets no band, and the title says so."""
    if not curves:
        return None
    title = (
        f"{dataset}: learning curves of the best configuration of each approach\n"
        "mean over seeds; shaded: 95% CI"
    )
    fig, axes = new_figure(len(curves), 2, title, LEARNING_PANEL, (0.0, 0.6 + LEGEND))
    unbanded = 0
    for (loss_ax, match_ax), curve in zip(axes, curves, strict=True):
        if curve.loss_is_positive:
            loss_ax.set_yscale("log")
            plain_ticks(loss_ax.yaxis)
        # a loss that can be negative (Poisson's, without its constant) has no lower bound
        bounds = NON_NEGATIVE if curve.loss_is_positive else (-math.inf, math.inf)
        unbanded += _history(loss_ax, curve, HISTORY_LOSSES, bounds)[1]
        loss_ax.set_title(f"{curve.title}: loss")
        loss_ax.set_ylabel(curve.loss_label)
        if not _history(match_ax, curve, HISTORY_EXACT_MATCH, FRACTION)[0]:
            match_ax.text(
                0.5, 0.5, "not recorded per epoch", transform=match_ax.transAxes, ha="center"
            )
        match_ax.set_title("exact match")
        match_ax.set_ylabel("fraction of examples")
        for ax in (loss_ax, match_ax):
            ax.set_xlabel("epoch")
            integer_ticks(ax.xaxis)
    if unbanded:
        fig.suptitle(f"{title}, none on a log axis where it reaches 0", fontsize=12)
    figure_legend(fig, axes)
    return save(fig, path)
