"""The figures' shared style and drawing helpers: matplotlib on the Agg backend, readable sizes,
labelled axes with units, one PNG per figure.

Readable means shown at full size: report.html never scales a figure down on a screen at least
:data:`MAX_WIDTH` × :data:`DPI` pixels wide (render.py's column is that wide), so 10-point text
stays 10 × DPI / 72 ≈ 14 px tall and the smallest (8-point) about 11 px. A figure grows down,
not across: panels are stacked in rows of at most :data:`MAX_WIDTH` inches."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display: DVC stages and CI have none
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

from roundlab.paths import atomic_path  # noqa: E402

DPI = 100
PANEL = (4.6, 3.4)  # inches per panel
MAX_WIDTH = 11.0  # inches: the widest figure report.html shows at its own size
X_LABEL = "x (pre-activation, label units)"
PARAM_LABELS = {
    "steepness": "steepness k (per unit of x, log scale)",
    "width": "window width w (fraction of one unit)",
    "alpha": "alpha α (dimensionless, log scale)",
    "sigma": "sigma σ (units of x, log scale)",
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


def new_figure(
    nrows: int,
    ncols: int,
    title: str,
    panel: tuple[float, float] = PANEL,
    extra: tuple[float, float] = (0.0, 0.6),
):
    """A figure of ``nrows`` × ``ncols`` panels of ``panel`` inches under ``title``, ``extra``
    inches added for what lies outside the panels (title, legends); returns (figure, 2-D axes).
    Raises ValueError for a figure wider than :data:`MAX_WIDTH`: the report would shrink it and
    its text with it."""
    width = max(panel[0] * ncols + extra[0], 8.0)  # never narrower than the two-line title
    if width > MAX_WIDTH:
        raise ValueError(
            f"a figure must be at most {MAX_WIDTH} inches wide to show at full size. "
            f"Received: width={width:g} (ncols={ncols}, panel={panel})"
        )
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(width, panel[1] * nrows + extra[1]),
        squeeze=False,
        layout="constrained",
    )
    fig.suptitle(title, fontsize=12)
    return fig, axes


def figure_legend(fig, axes, ncols: int = 3) -> None:
    """One legend for the whole figure, below its panels, with each label once: the panels
    share their colours, and a legend inside a panel hides data or notes."""
    entries: dict[str, object] = {}
    for ax in np.ravel(axes):
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
    if entries:
        fig.legend(
            list(entries.values()),
            list(entries),
            loc="outside lower center",
            ncols=min(ncols, len(entries)),
        )


def save(fig, path: Path) -> Path:
    """Draw ``fig`` to ``path`` (a temporary name first, :func:`roundlab.paths.atomic_path`) and
    close it."""
    path = Path(path)
    try:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, dpi=DPI, format=path.suffix.lstrip(".") or None)
    finally:
        plt.close(fig)
    return path


def colours(cmap: str, n: int, stop: float):
    """``n`` colours from ``cmap`` between 0 and ``stop`` (the light end is hard to see)."""
    return plt.get_cmap(cmap)(np.linspace(0.0, stop, max(n, 1)))


def plain_ticks(axis) -> None:
    """Log-axis ticks at 1, 2, 5 × 10^n, written 0.5, 1, 20 rather than 5×10^-1, 10^0, 2×10^1."""
    axis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def integer_ticks(axis) -> None:
    axis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))


def param_axis(ax, name: str, values: Sequence[float]) -> None:
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


def band_edges(
    intervals, bounds: tuple[float, float] = (-np.inf, np.inf), log: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The band's lower and upper edges: each interval clipped to ``bounds``, the range the
    metric can take (a fraction in [0, 1], an error >= 0), since a t interval is symmetric and
    runs past a bound the metric never crosses. On a ``log`` axis an edge <= 0 lies at minus
    infinity, so that point gets no band (NaN) rather than a spike to the axis' bottom. NaN
    where the interval is unavailable."""
    lo = np.array([iv.lo if iv.available else np.nan for iv in intervals], dtype=float)
    hi = np.array([iv.hi if iv.available else np.nan for iv in intervals], dtype=float)
    lo, hi = np.clip(lo, *bounds), np.clip(hi, *bounds)
    if log:
        unbounded = ~(lo > 0)
        lo[unbounded], hi[unbounded] = np.nan, np.nan
    return lo, hi


def band(ax, xs, intervals, colour, label, marker="o", bounds=(-np.inf, np.inf)) -> int:
    """Mean line with a 95% CI band clipped to ``bounds`` (:func:`band_edges`; set a log y
    scale before calling); points with one seed get a hollow marker and no band. Returns how
    many points with an interval got no band because it reaches 0 on a log axis."""
    means = np.array([iv.mean for iv in intervals], dtype=float)
    ax.plot(xs, means, marker=marker, color=colour, label=label)
    have = np.array([iv.available for iv in intervals])
    lo, hi = band_edges(intervals, bounds, log=ax.get_yscale() == "log")
    if have.any():
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
    return int(np.sum(have & np.isnan(lo)))


def plot_broken(ax, x, y, relative: float | None = None, **style):
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
