"""The activation figures: the gallery and the gradient checks. They draw evaluations computed
in gradients.py (TensorFlow ran there, not here); each function returns the PNG's path."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from roundlab.report.gradcheck import Evaluation
from roundlab.report.gradients import GradientResults
from roundlab.report.handwritten import SPIKY_DY, SPIKY_X, SPIKY_Y
from roundlab.report.plotting import X_LABEL, colours, new_figure, plot_broken, save

# Inches right of the panels for each panel's legend: a legend inside a panel covers the
# curves it names. The gradient checks' two panels are stacked, their legends being long.
GALLERY_LEGEND = 1.6
CHECKS_PANEL = (6.6, 3.6)
CHECKS_LEGEND = 3.6
OUTSIDE_RIGHT = dict(loc="center left", bbox_to_anchor=(1.02, 0.5))


def _gallery_row(ax_f, ax_g, title: str, evs: list[Evaluation]) -> None:
    x0 = evs[0].x
    ax_f.plot(x0, np.round(x0), color="0.6", linestyle="--", linewidth=0.8)
    # several parameterless activations share a row and overlap (identity and ste_round
    # have the same gradient): line styles keep each one visible
    styles = ("-", "--", ":", "-.") if len({ev.name for ev in evs}) > 1 else ("-",)
    for i, (ev, colour) in enumerate(zip(evs, colours("viridis", len(evs), 0.85), strict=True)):
        label = ", ".join(f"{k}={v:g}" for k, v in ev.params.items()) or ev.name
        style = dict(color=colour, label=label, linestyle=styles[i % len(styles)])
        plot_broken(ax_f, ev.x, ev.y, linewidth=1.6, **style)
        if ev.grad is None:
            ax_g.text(
                0.5,
                0.5,
                f"{label}: no gradient (TensorFlow returns None)",
                transform=ax_g.transAxes,
                ha="center",
                color=colour,
                bbox=dict(facecolor="white", edgecolor=colour),
            )
        else:
            plot_broken(ax_g, ev.x, ev.grad, relative=0.5, linewidth=1.6, **style)
    ax_f.set_title(f"{title}: forward")
    ax_f.set_xlabel(X_LABEL)
    ax_f.set_ylabel("output (label units)")
    # the forward panel names every activation, one without a gradient too
    ax_g.legend(*ax_f.get_legend_handles_labels(), **OUTSIDE_RIGHT)
    ax_g.set_title(f"{title}: gradient dy/dx")
    ax_g.set_xlabel(X_LABEL)
    ax_g.set_ylabel("dy/dx (dimensionless)")


def gallery(rows: list[tuple[str, list[Evaluation]]], path: Path) -> Path:
    """One row per activation family: forward (left) and TensorFlow gradient (right) at each
    parameter value, the row's legend on its right. ``rows`` is a list of (row title,
    evaluations)."""
    fig, axes = new_figure(
        len(rows),
        2,
        "Activation gallery: forward and gradient at the swept values\n"
        "gaps are jumps; dashed grey: round(x)",
        extra=(GALLERY_LEGEND, 0.6),
    )
    for (title, evs), (ax_f, ax_g) in zip(rows, axes, strict=True):
        _gallery_row(ax_f, ax_g, title, evs)
    return save(fig, path)


def _sigmoid_panel(ax, grad: GradientResults) -> None:
    """sigmoid_round's TensorFlow gradient against approx_round_grad, which misses k."""
    for curve, colour in zip(grad.sigmoid, colours("plasma", len(grad.sigmoid), 0.75), strict=True):
        ev, k = curve.evaluation, curve.steepness
        plot_broken(ax, ev.x, ev.grad, color=colour, label=f"TensorFlow, k={k:g}")
        plot_broken(
            ax,
            ev.x,
            curve.handwritten_grad,
            color=colour,
            linestyle=":",
            label=f"hand-written approx_round_grad, k={k:g}",
        )
    ax.set_yscale("log")
    ax.set_ylim(1e-3, None)
    ax.set_title("sigmoid_round: true k·s(1−s) vs hand-written s(1−s)")
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel("dy/dx (dimensionless, log scale)")
    ax.legend(**OUTSIDE_RIGHT)


def _spiky_panel(ax, spiky: Evaluation, spiky_np: Evaluation) -> None:
    """spiky through TF ops, its numpy twin, and the example's four points."""
    plot_broken(ax, spiky.x, spiky.y, color="tab:blue", label="spiky(x), TF ops")
    plot_broken(
        ax, spiky.x, spiky.grad, color="tab:orange", linestyle="--", label="dy/dx, TF autodiff"
    )
    points = dict(markersize=9, markerfacecolor="none")
    ax.plot(
        SPIKY_X,
        SPIKY_Y,
        "o",
        color="tab:blue",
        label="example: y at [0.2, 0.7, 1.2, 1.7]",
        **points,
    )
    ax.plot(SPIKY_X, SPIKY_DY, "s", color="tab:orange", label="example: dy/dx", **points)
    every = max(1, len(spiky_np.x) // 40)  # a marker per grid point would hide the lines
    x = spiky_np.x[::every]
    ax.plot(
        x,
        spiky_np.y[::every],
        "x",
        color="black",
        markersize=5,
        label="y, numpy_activation (spiky_np)",
    )
    ax.plot(
        x, spiky_np.grad[::every], "+", color="0.3", markersize=6, label="dy/dx, numpy_activation"
    )
    ax.set_title("spiky: the worked example")
    ax.set_xlabel(X_LABEL)
    ax.set_ylabel("y (label units) and dy/dx (dimensionless)")
    ax.set_ylim(-0.1, 1.75)
    ax.legend(**OUTSIDE_RIGHT)


def gradient_checks(grad: GradientResults, path: Path) -> Path:
    """Top: sigmoid_round's TensorFlow gradient against the hand-written approx_round_grad.
    Bottom: the spiky example, both implementations. Legends right of the panels."""
    fig, axes = new_figure(
        2,
        1,
        "Gradient checks: hand-written gradients and the spiky example",
        CHECKS_PANEL,
        (CHECKS_LEGEND, 0.6),
    )
    _sigmoid_panel(axes[0][0], grad)
    _spiky_panel(axes[1][0], grad.spiky_tf, grad.spiky_np)
    return save(fig, path)
