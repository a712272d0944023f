"""The result figures: each swept activation against its knob, and learning curves. They draw
the values computed in curves.py; each function returns the PNG's path."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from roundlab.report.curves import HISTORY_EXACT_MATCH, HISTORY_LOSSES, LearningCurve, SweepCurve
from roundlab.report.plotting import band, integer_ticks, new_figure, param_axis, plain_ticks, save

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
        band(ax, curve.values, intervals, SPLIT_COLOURS[split], split)
    lo, hi = _span([iv for intervals in splits.values() for iv in intervals if iv.n])
    off_scale = []
    for label, value in references.items():
        if value is None or not math.isfinite(value):
            continue
        if lo - 0.1 <= value <= hi + 0.1:
            ax.axhline(value, label=f"{label} (test)", **REFERENCE_STYLE[label])
            lo, hi = min(lo, value), max(hi, value)
        else:
            off_scale.append(f"{label}: {value:.2f}")
    if off_scale:  # drawing them would squash the differences between knob values
        ax.text(
            0.02,
            0.02,
            "off scale (test): " + ", ".join(off_scale),
            transform=ax.transAxes,
            fontsize=8,
            color="0.3",
        )
    ax.set_title(curve.activation)
    ax.set_ylabel("exact match (fraction of examples)")
    pad = max(0.02, 0.1 * (hi - lo))
    ax.set_ylim(max(-0.02, lo - pad), min(1.02, hi + pad))
    ax.legend(loc="best", fontsize=8)


def _zero_grad_panel(ax, curve: SweepCurve) -> None:
    if any(iv.n for iv in curve.zero_grad_fraction):
        band(ax, curve.values, curve.zero_grad_fraction, "tab:purple", "end of training")
        ax.legend(loc="best")
    else:
        ax.text(0.5, 0.5, "not recorded", transform=ax.transAxes, ha="center")
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel("zero output gradient\n(fraction of training examples)")


def sweep_curves(
    dataset: str, curves: list[SweepCurve], references: dict[str, float | None], path: Path
) -> Path | None:
    """Per activation swept over two or more values (columns): exact match on val and test,
    test MAE, and the fraction of training examples whose output gradient is zero, against
    the parameter.

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
    fig, axes = new_figure(3, len(curves), title)
    for col, curve in enumerate(curves):
        _exact_match_panel(axes[0][col], curve, references)
        band(axes[1][col], curve.values, curve.test_mae, SPLIT_COLOURS["test"], "test")
        axes[1][col].set_ylabel("MAE (label units)")
        axes[1][col].legend(loc="best")
        _zero_grad_panel(axes[2][col], curve)
        for row in range(3):
            param_axis(axes[row][col], curve.param, curve.values)
    return save(fig, path)


def _history(ax, curve: LearningCurve, keys: tuple[str, ...]) -> bool:
    """Draw the recorded ``keys`` of the history per epoch; False if none was recorded."""
    drawn = [key for key in keys if key in curve.history]
    for key in drawn:
        per_epoch = curve.history[key]
        epochs = np.arange(1, len(per_epoch) + 1)
        band(ax, epochs, per_epoch, HISTORY_COLOURS[key], HISTORY_LABELS[key], marker="")
    return bool(drawn)


def learning_curves(dataset: str, curves: list[LearningCurve], path: Path) -> Path | None:
    """Loss (top) and exact match (bottom, where recorded) per epoch, training and validation,
    for the best configuration of each approach; None when there is no history to draw."""
    if not curves:
        return None
    fig, axes = new_figure(
        2,
        len(curves),
        f"{dataset}: learning curves of the best configuration of "
        "each approach\nmean over seeds; shaded: 95% CI",
    )
    for col, curve in enumerate(curves):
        ax = axes[0][col]
        _history(ax, curve, HISTORY_LOSSES)
        ax.set_title(curve.title)
        ax.set_ylabel(f"loss: {curve.loss_label}")
        if curve.loss_is_positive:
            ax.set_yscale("log")
            plain_ticks(ax.yaxis)
        ax = axes[1][col]
        if not _history(ax, curve, HISTORY_EXACT_MATCH):
            ax.text(0.5, 0.5, "not recorded per epoch", transform=ax.transAxes, ha="center")
        ax.set_ylabel("exact match (fraction of examples)")
        for row in (0, 1):
            axes[row][col].set_xlabel("epoch")
            integer_ticks(axes[row][col].xaxis)
            if axes[row][col].get_legend_handles_labels()[0]:
                axes[row][col].legend(loc="best")
    return save(fig, path)
