"""The report's figures: matplotlib on the Agg backend, one PNG per figure.

Each function takes the data it draws and the output path, and returns the path. Styling is
shared (readable sizes, labelled axes with units, legends) through :func:`_figure`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: DVC stages and CI have none
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

from roundlab.report.gradcheck import SPIKY_DY, SPIKY_X, SPIKY_Y, Evaluation  # noqa: E402
from roundlab.report.selection import Config  # noqa: E402
from roundlab.report.stats import mean_ci  # noqa: E402

DPI = 100
PANEL = (4.6, 3.4)  # inches per panel
PARAM_LABELS = {
    "steepness": "steepness k (per unit of x, log scale)",
    "width": "window width w (fraction of one unit)",
    "alpha": "alpha α (dimensionless, log scale)",
    "sigma": "sigma σ (units of x, log scale)",
}
HISTORY_LABELS = {
    "loss": "training",
    "val_loss": "validation",
    "exact_match": "training",
    "val_exact_match": "validation",
}
SPLIT_COLOURS = {"val": "tab:blue", "test": "tab:orange"}
REFERENCE_STYLE = {
    "classification": dict(color="tab:green", linestyle=":"),
    "regression": dict(color="tab:red", linestyle="--"),
    "constant baseline": dict(color="0.45", linestyle="-."),
}
plt.rcParams.update(
    {
        "font.size": 10,
        "axes.titlesize": 11,
        "legend.fontsize": 8.5,
        "axes.grid": True,
        "grid.alpha": 0.3,
    }
)


def _figure(nrows: int, ncols: int, title: str):
    fig, axes = plt.subplots(
        nrows,
        ncols,
        # never narrower than the two-line title
        figsize=(max(PANEL[0] * ncols, 8.0), PANEL[1] * nrows + 0.6),
        squeeze=False,
        layout="constrained",
    )
    fig.suptitle(title, fontsize=12)
    return fig, axes


def _save(fig, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _plain_ticks(axis) -> None:
    """Log-axis ticks at 1, 2, 5 × 10^n, written 0.5, 1, 20 rather than 5×10^-1, 10^0, 2×10^1."""
    axis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _param_axis(ax, name: str, values: Sequence[float]) -> None:
    positive = [v for v in values if v > 0]
    if name == "width" or not positive:
        ax.set_xscale("linear")
    elif len(positive) < len(values):  # alpha = 0 is legal: symlog keeps it on the axis
        ax.set_xscale("symlog", linthresh=min(positive))
    else:
        ax.set_xscale("log")
    ax.margins(x=0.08)  # markers at the first and last value stay whole
    # ticks at the values that ran, not at powers of ten the sweep never visited
    ax.set_xticks(list(values), [f"{v:g}" for v in values])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel(PARAM_LABELS.get(name, name))


def _band(ax, xs, intervals, colour, label, marker="o"):
    """Mean line with a 95% CI band; points with one seed get a hollow marker and no band."""
    means = np.array([iv.mean for iv in intervals], dtype=float)
    ax.plot(xs, means, marker=marker, color=colour, label=label)
    have = np.array([iv.available for iv in intervals])
    if have.any():
        lo = np.array([iv.lo if iv.available else np.nan for iv in intervals])
        hi = np.array([iv.hi if iv.available else np.nan for iv in intervals])
        ax.fill_between(xs, lo, hi, color=colour, alpha=0.2, linewidth=0)
    if (~have).any():
        ax.plot(
            np.asarray(xs)[~have],
            means[~have],
            linestyle="none",
            marker=marker,
            markerfacecolor="white",
            color=colour,
        )


def _span(intervals) -> tuple[float, float]:
    """The smallest and largest value the intervals reach (their means when unavailable)."""
    if not intervals:
        return 0.0, 1.0
    return min(iv.lo for iv in intervals), max(iv.hi for iv in intervals)


def sweep_curves(
    dataset: str, configs: list[Config], references: dict[str, float], path: Path
) -> Path | None:
    """Per swept activation (columns): exact match on val and test, test MAE, and the fraction
    of training examples whose output gradient is zero, against the parameter.

    ``references`` maps a label (classification, regression, constant baseline) to its test
    exact match, drawn as horizontal lines. Returns None when nothing was swept.
    """
    families: dict[str, list[Config]] = {}
    for cfg in configs:
        if cfg.approach == "rounding" and cfg.param is not None and cfg.finished:
            families.setdefault(cfg.activation, []).append(cfg)
    families = {k: v for k, v in sorted(families.items()) if len(v) >= 2}
    if not families:
        return None
    fig, axes = _figure(
        3,
        len(families),
        f"{dataset}: rounding activations against their knob\n"
        "mean over seeds; shaded: 95% CI; hollow marker: one seed (no CI)",
    )
    for col, (activation, members) in enumerate(families.items()):
        members = sorted(members, key=lambda c: c.param[1])
        pname = members[0].param[0]
        xs = [c.param[1] for c in members]
        ax = axes[0][col]
        for split in ("val", "test"):
            _band(
                ax,
                xs,
                [c.metric(split, "exact_match") for c in members],
                SPLIT_COLOURS[split],
                f"{split}",
            )
        curves = [
            iv
            for split in ("val", "test")
            for c in members
            for iv in [c.metric(split, "exact_match")]
            if iv.n
        ]
        lo, hi = _span(curves)
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
        ax.set_title(f"{activation}")
        ax.set_ylabel("exact match (fraction of examples)")
        pad = max(0.02, 0.1 * (hi - lo))
        ax.set_ylim(max(-0.02, lo - pad), min(1.02, hi + pad))
        ax.legend(loc="best", fontsize=8)
        ax = axes[1][col]
        _band(ax, xs, [c.metric("test", "mae") for c in members], SPLIT_COLOURS["test"], "test")
        ax.set_ylabel("MAE (label units)")
        ax.legend(loc="best")
        ax = axes[2][col]
        zero = [c.zero_grad_fraction() for c in members]
        if any(iv.n for iv in zero):
            _band(ax, xs, zero, "tab:purple", "end of training")
            ax.legend(loc="best")
        else:
            ax.text(0.5, 0.5, "not recorded", transform=ax.transAxes, ha="center")
        ax.set_ylim(-0.02, 1.02)
        ax.set_ylabel("zero output gradient\n(fraction of training examples)")
        for row in range(3):
            _param_axis(axes[row][col], pname, xs)
    return _save(fig, path)


def _loss_label(cfg: Config) -> str:
    """What the loss of ``cfg`` measures, from the approach and the recorded trainer config."""
    if cfg.approach == "classification":
        return "cross-entropy (nats)"
    trainer = (cfg.runs[0].config or {}).get("trainer", {}) if cfg.runs else {}
    if cfg.approach == "regression" and trainer.get("loss") == "huber":
        return "Huber (label units)"
    return "squared error (label units²)"


def _history_band(ax, cfg: Config, key: str, colour: str) -> bool:
    """Mean of history ``key`` per epoch over the seeds, with its CI; False if nobody has it."""
    runs = [r for r in cfg.finished if r.history.get(key)]
    if not runs:
        return False
    epochs = max(len(r.history[key]) for r in runs)
    per_epoch = [
        mean_ci(r.history[key][e] for r in runs if e < len(r.history[key])) for e in range(epochs)
    ]
    _band(ax, np.arange(1, epochs + 1), per_epoch, colour, HISTORY_LABELS.get(key, key), marker="")
    return True


def learning_curves(dataset: str, best: list[Config], path: Path) -> Path | None:
    """Loss (top) and exact match (bottom, where recorded) per epoch, training and validation,
    for the best configuration of each approach."""
    best = [c for c in best if any(r.history for r in c.finished)]
    if not best:
        return None
    fig, axes = _figure(
        2,
        len(best),
        f"{dataset}: learning curves of the best configuration of "
        "each approach\nmean over seeds; shaded: 95% CI",
    )
    for col, cfg in enumerate(best):
        ax = axes[0][col]
        for key, colour in (("loss", "tab:blue"), ("val_loss", "tab:orange")):
            _history_band(ax, cfg, key, colour)
        ax.set_title(f"{cfg.label} {cfg.setting if cfg.params else ''}".strip())
        ax.set_ylabel(f"loss: {_loss_label(cfg)}")
        values = [
            v
            for r in cfg.finished
            for k in ("loss", "val_loss")
            for v in r.history.get(k, [])
            if v is not None
        ]
        if values and min(values) > 0:
            ax.set_yscale("log")
            _plain_ticks(ax.yaxis)
        ax = axes[1][col]
        drawn = [
            _history_band(ax, cfg, key, colour)
            for key, colour in (("exact_match", "tab:blue"), ("val_exact_match", "tab:orange"))
        ]
        if not any(drawn):
            ax.text(0.5, 0.5, "not recorded per epoch", transform=ax.transAxes, ha="center")
        ax.set_ylabel("exact match (fraction of examples)")
        for row in (0, 1):
            axes[row][col].set_xlabel("epoch")
            axes[row][col].xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
            if axes[row][col].get_legend_handles_labels()[0]:
                axes[row][col].legend(loc="best")
    return _save(fig, path)


def _plot_broken(ax, x, y, relative: float | None = None, **style):
    """Plot without joining across jumps, so a discontinuity shows as a gap, not a wall.

    A jump is a step between grid points larger than 0.05 (forwards, whose slopes stay below
    50 on the 0.001 grid), or larger than ``relative`` × the curve's range when given
    (gradients, whose peaks are steep by design and must not be cut).
    """
    y = np.asarray(y, dtype=float)
    step = np.abs(np.diff(y))
    limit = 0.05 if relative is None else relative * max(float(np.ptp(y)), 1e-12)
    where = np.nonzero(step > limit)[0] + 1
    return ax.plot(
        np.insert(np.asarray(x, dtype=float), where, np.nan), np.insert(y, where, np.nan), **style
    )


def gallery(rows: list[tuple[str, list[Evaluation]]], path: Path) -> Path:
    """One row per activation family: forward (left) and TensorFlow gradient (right) at each
    parameter value. ``rows`` is a list of (row title, evaluations)."""
    fig, axes = _figure(
        len(rows),
        2,
        "Activation gallery: forward and gradient at the swept values\n"
        "gaps are jumps; dashed grey: round(x)",
    )
    for (title, evs), (ax_f, ax_g) in zip(rows, axes, strict=True):
        colours = plt.cm.viridis(np.linspace(0.0, 0.85, max(len(evs), 1)))
        x0 = evs[0].x
        ax_f.plot(x0, np.round(x0), color="0.6", linestyle="--", linewidth=0.8)
        # several parameterless activations share a row and overlap (identity and ste_round
        # have the same gradient): line styles keep each one visible
        styles = ("-", "--", ":", "-.") if len({ev.name for ev in evs}) > 1 else ("-",)
        for i, (ev, colour) in enumerate(zip(evs, colours, strict=True)):
            label = ", ".join(f"{k}={v:g}" for k, v in ev.params.items()) or ev.name
            style = dict(color=colour, label=label, linestyle=styles[i % len(styles)])
            _plot_broken(ax_f, ev.x, ev.y, linewidth=1.6, **style)
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
                _plot_broken(ax_g, ev.x, ev.grad, relative=0.5, linewidth=1.6, **style)
        ax_f.set_title(f"{title}: forward")
        ax_f.set_xlabel("x (pre-activation, label units)")
        ax_f.set_ylabel("output (label units)")
        ax_f.legend(loc="upper left")
        ax_g.set_title(f"{title}: gradient dy/dx (colours as on the left)")
        ax_g.set_xlabel("x (pre-activation, label units)")
        ax_g.set_ylabel("dy/dx (dimensionless)")
    return _save(fig, path)


def gradient_checks(
    sigmoid: list[tuple[float, Evaluation]], spiky: Evaluation, spiky_np: Evaluation, path: Path
) -> Path:
    """Left: sigmoid_round's TensorFlow gradient against the thread's approx_round_grad, which
    misses the factor k. Right: the first thread's spiky example, both implementations."""
    from roundlab.report.gradcheck import approx_round_grad

    fig, axes = _figure(1, 2, "Gradient checks against the threads")
    ax = axes[0][0]
    colours = plt.cm.plasma(np.linspace(0.0, 0.75, max(len(sigmoid), 1)))
    for (k, ev), colour in zip(sigmoid, colours, strict=True):
        _plot_broken(ax, ev.x, ev.grad, color=colour, label=f"TensorFlow, k={k:g}")
        _plot_broken(
            ax,
            ev.x,
            approx_round_grad(ev.x, k),
            color=colour,
            linestyle=":",
            label=f"thread's approx_round_grad, k={k:g}",
        )
    ax.set_yscale("log")
    ax.set_ylim(1e-3, None)
    ax.set_title("sigmoid_round: true gradient k·s(1−s) vs thread's s(1−s)")
    ax.set_xlabel("x (pre-activation, label units)")
    ax.set_ylabel("dy/dx (dimensionless, log scale)")
    ax.legend(loc="lower right", ncol=1)
    ax = axes[0][1]
    _plot_broken(ax, spiky.x, spiky.y, color="tab:blue", label="spiky(x), TF ops")
    _plot_broken(
        ax, spiky.x, spiky.grad, color="tab:orange", linestyle="--", label="dy/dx, TF autodiff"
    )
    ax.plot(
        SPIKY_X,
        SPIKY_Y,
        "o",
        color="tab:blue",
        markersize=9,
        markerfacecolor="none",
        label="thread: y at [0.2, 0.7, 1.2, 1.7]",
    )
    ax.plot(
        SPIKY_X,
        SPIKY_DY,
        "s",
        color="tab:orange",
        markersize=9,
        markerfacecolor="none",
        label="thread: dy/dx",
    )
    every = max(1, len(spiky_np.x) // 40)  # a marker per grid point would hide the lines
    ax.plot(
        spiky_np.x[::every],
        spiky_np.y[::every],
        "x",
        color="black",
        markersize=5,
        label="y, numpy_activation (spiky_np)",
    )
    ax.plot(
        spiky_np.x[::every],
        spiky_np.grad[::every],
        "+",
        color="0.3",
        markersize=6,
        label="dy/dx, numpy_activation",
    )
    ax.set_title("spiky: the first thread's example")
    ax.set_xlabel("x (pre-activation, label units)")
    ax.set_ylabel("y (label units) and dy/dx (dimensionless)")
    ax.set_ylim(-0.1, 1.75)
    ax.legend(loc="upper center", ncol=2)
    return _save(fig, path)
