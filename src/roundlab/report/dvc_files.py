"""The files DVC reads besides the report: headline.json, the pipeline's declared metrics (the
columns of ``dvc exp show`` and ``dvc metrics diff``), metrics/ with every approach's numbers
(``dvc metrics show reports/metrics``) and plots/ (the data behind ``dvc plots show``)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from roundlab.paths import atomic_write
from roundlab.report.curves import SweepCurve
from roundlab.report.headline import Headline
from roundlab.report.recommendation import best_exact_match
from roundlab.report.selection import HEADLINE_COLUMNS, ROUNDING, Configuration, selection_key
from roundlab.report.verdicts import optimiser_stopped

PLOT_COLUMNS = (
    "value",
    "val_exact_match",
    "test_exact_match",
    "test_mae",
    "zero_grad_fraction",
    "seeds",
)


def _fresh(directory: Path, pattern: str) -> None:
    """Create ``directory`` and remove its old files: a dataset or approach dropped from the
    sweep must leave no file behind."""
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob(pattern):
        stale.unlink()


def metric_key(cfg: Configuration) -> str:
    """A metrics file name, one per headline row: ``classification``, ``rounding-<activation>``,
    ``<approach>-<method>`` for an approach with methods (``ordinal-corn``, ``ordinal-coral``),
    so that no row overwrites another."""
    if cfg.approach == ROUNDING:
        return f"{ROUNDING}-{cfg.activation}"
    return f"{cfg.approach}-{cfg.method}" if cfg.method else cfg.approach


def write_metrics(headlines: dict[str, Headline], metrics_dir: Path) -> list[Path]:
    """Headline means for ``dvc metrics show``, one file per approach (and one for the constant
    baseline) mapping dataset -> exact_match, mae, extrapolation (test exact match, test MAE,
    extrapolation exact match), so that the table DVC prints has a row per approach, like the
    report's. The intervals are in the report: DVC shows one number per key. A missing value
    (no extrapolation split) is null, and so is every value of a row whose numbers depend on
    the machine (:func:`roundlab.report.verdicts.optimiser_stopped`): a metric file must
    reproduce exactly on another machine."""
    rows: dict[str, dict[str, dict]] = {}
    for dataset, h in headlines.items():
        for cfg in h.rows:
            rows.setdefault(metric_key(cfg), {})[dataset] = {
                c.key: _value(cfg, c.split, c.metric) for c in HEADLINE_COLUMNS
            }
        rows.setdefault("baseline", {})[dataset] = {
            c.key: _num(h.baseline[(c.split, c.metric)].mean) for c in HEADLINE_COLUMNS
        }
    _fresh(metrics_dir, "*.json")
    paths = []
    for name, entry in rows.items():
        paths.append(atomic_write(metrics_dir / f"{name}.json", json.dumps(entry, indent=2) + "\n"))
    return paths


def write_headline(headlines: dict[str, Headline], path: Path) -> Path:
    """Per dataset, the report's recommendation for test exact match
    (:func:`roundlab.report.recommendation.best_exact_match`; ``best``: its label and setting)
    with its test exact match and MAE: three numbers per dataset, so that ``dvc exp show`` stays
    a table one can read and ``dvc metrics diff`` says whether an experiment changed the answer.
    A dataset without a recommendation (no converged candidate) keeps its three keys, so that
    its columns stay in ``dvc exp show`` (DVC drops null values): ``best`` says there is none and
    names the row val ranks first, whose numbers follow. Every row's numbers are in metrics/."""
    entry = {}
    for dataset, h in headlines.items():
        best = best_exact_match(h)
        title = best.title if best is not None else None
        if best is None and h.rows:
            best = min(h.rows, key=selection_key)
            title = f"no recommendation (none converged); best on val: {best.title}"
        if best is None:
            continue
        entry[dataset] = {
            "best": title,
            "exact_match": _value(best, "test", "exact_match"),
            "mae": _value(best, "test", "mae"),
        }
    return atomic_write(path, json.dumps(entry, indent=2) + "\n")


def _value(cfg: Configuration, split: str, metric: str) -> float | None:
    return None if optimiser_stopped(cfg) else _num(cfg.metric(split, metric).mean)


def _num(value: float) -> float | None:
    return round(value, 4) if value == value else None  # NaN is not JSON


def write_plots(curves: dict[str, list[SweepCurve]], plot_dir: Path) -> list[Path]:
    """One CSV per (dataset, swept activation), x = the parameter value, for ``dvc plots``.
    ``curves`` maps each dataset to its sweep curves."""
    _fresh(plot_dir, "*.csv")
    paths = []
    for dataset, dataset_curves in curves.items():
        for curve in dataset_curves:
            text = io.StringIO(newline="")
            writer = csv.writer(text)
            writer.writerow(PLOT_COLUMNS)
            writer.writerows(_plot_rows(curve))
            path = plot_dir / f"sweep-{dataset}-{curve.activation}.csv"
            paths.append(atomic_write(path, text.getvalue()))
    return paths


def _plot_rows(curve: SweepCurve) -> list[list]:
    return [
        [f"{value:g}", *(_csv(iv.mean) for iv in intervals), seeds]
        for value, *intervals, seeds in zip(
            curve.values,
            curve.val_exact_match,
            curve.test_exact_match,
            curve.test_mae,
            curve.zero_grad_fraction,
            curve.seeds,
            strict=True,
        )
    ]


def _csv(value: float) -> str:
    return "" if value != value else f"{value:.4f}"
