"""Build the report from result files: reports/report.md, report.html, figures/, metrics/
(``dvc metrics show``) and plots/ (the data behind ``dvc plots show``)."""

from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from roundlab import paths
from roundlab import results as results_io
from roundlab.report import environment, render, sections
from roundlab.report.document import Document, Heading, Paragraph
from roundlab.report.selection import Config, group
from roundlab.versions import package_versions

TITLE = "roundlab: training networks whose targets are integers"
MANIFEST = paths.SWEEP_MANIFEST


@dataclass(frozen=True)
class Outputs:
    markdown: Path
    html: Path
    metrics: list[Path]
    figures: list[Path]
    plots: list[Path]


def read_manifest(results_dir: Path) -> dict:
    """The sweep's record (profile, planned result files, wall time), or {} when absent."""
    path = Path(results_dir) / MANIFEST
    return (yaml.safe_load(path.read_text()) or {}) if path.is_file() else {}


def build(
    results_dir: Path, reports_dir: Path, root: Path, *, gradients: bool = True, cost: bool = True
) -> Outputs:
    """Write the report. ``gradients`` False leaves out the sections computed from
    roundlab.activations (gallery, gradient checks); ``cost`` False leaves out the timing."""
    start = time.perf_counter()
    results_dir, reports_dir = Path(results_dir), Path(reports_dir)
    figdir = reports_dir / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    for stale in figdir.glob("*.png"):  # a dataset dropped from the sweep leaves no old figure
        stale.unlink()
    runs = results_io.read_all(results_dir)
    manifest = read_manifest(results_dir)
    groups = group(runs)
    swept = sections.swept_values(groups)
    headlines = {d: sections.headline(d, cfgs) for d, cfgs in groups.items()}
    extrapolates = {
        d: any("extrapolate" in r.metrics for c in cfgs for r in c.finished)
        for d, cfgs in groups.items()
    }

    doc = Document(TITLE)
    n_ok = sum(r.ok for r in runs)
    profile = manifest.get("profile", "unknown")
    doc.add(
        Paragraph(
            f"{len(runs)} runs ({n_ok} finished, {len(runs) - n_ok} failed) in "
            f"{sum(len(c) for c in groups.values())} configurations on {len(groups)} datasets, "
            f"sweep profile `{profile}`. Built from the result files under `{results_dir.name}/` "
            "alone. Each rounding activation's setting is chosen on the validation split (highest "
            "mean exact match, ties to the lower MAE) and reported on the test split. Intervals "
            "are "
            "95% confidence intervals of the mean over seeds (t distribution); with one seed there "
            "is no interval and the table says so. A row is marked best only when its interval "
            "does "
            "not overlap the runner-up's: a difference inside the intervals is not called a win."
        )
    )
    grad = sections.gradient_data(swept, figdir, cost) if gradients else None
    doc.add(*sections.summary_blocks(headlines, groups, grad))

    doc.add(Heading("1. Headline results per dataset"))
    for dataset, h in headlines.items():
        doc.add(*sections.headline_blocks(h, extrapolates[dataset]))
    doc.add(Heading("2. Sweep curves"))
    doc.add(
        Paragraph(
            "Each rounding activation against its knob: exact match on val and test, test MAE, "
            "and the fraction of training examples whose loss gradient with respect to the "
            "output unit is exactly zero at the end of training: those examples teach the "
            "network nothing more. It is zero where the surrogate's slope is zero (sine_round "
            "outside its window) and, for activations that round in the forward pass "
            "(ste_round, comb_round), wherever the rounded output already equals the label."
        )
    )
    for dataset, cfgs in groups.items():
        doc.add(*sections.sweep_blocks(dataset, cfgs, headlines[dataset], figdir))
    doc.add(Heading("3. Activation gallery"))
    if gradients:
        doc.add(*sections.gallery_blocks(swept, figdir))
    else:
        doc.add(Paragraph("Left out of this build (--no-gradients)."))
    doc.add(Heading("4. Learning curves"))
    for dataset, cfgs in groups.items():
        doc.add(*sections.learning_blocks(dataset, cfgs, figdir))
    doc.add(Heading("5. Gradient checks"))
    doc.add(
        *(
            sections.gradient_blocks(grad)
            if grad
            else [Paragraph("Left out of this build (--no-gradients).")]
        )
    )
    doc.add(Heading("6. Failed runs"))
    doc.add(*sections.failed_blocks(runs, missing_runs(results_dir, manifest)))
    doc.add(Heading("7. Environment"))
    env = _environment(runs, manifest, root, time.perf_counter() - start)
    doc.add(*sections.environment_blocks(env))

    md_path = reports_dir / "report.md"
    md_path.write_text(render.to_markdown(doc, reports_dir))
    html_path = reports_dir / "report.html"
    html_path.write_text(render.to_html(doc))
    metrics = write_metrics(headlines, reports_dir / "metrics")
    plots = write_plots(groups, reports_dir / "plots")
    return Outputs(md_path, html_path, metrics, [f.path for f in doc.figures()], plots)


def missing_runs(results_dir: Path, manifest: dict) -> list[str]:
    """Result files the sweep planned that do not exist."""
    return sorted(p for p in manifest.get("planned", []) if not (results_dir / p).is_file())


def _environment(runs, manifest: dict, root: Path, report_s: float) -> dict[str, dict[str, str]]:
    timing = {"training, summed over runs": f"{environment.total_run_time(runs):.0f} s"}
    if "wall_time_s" in manifest:
        timing["sweep stage, wall clock"] = f"{manifest['wall_time_s']:.0f} s"
        if manifest.get("jobs"):
            timing["jobs run at once"] = str(manifest["jobs"])
    timing["report, up to writing it"] = f"{report_s:.0f} s"
    repo = {"git commit": environment.git_commit(root), **environment.dvc_lock(root)}
    return {
        "Time taken": timing,
        "Code and data": repo,
        "Devices the runs used (number of runs)": {
            k: str(v) for k, v in environment.devices(runs).items()
        },
        "Package versions recorded by the training runs": environment.recorded_versions(runs),
        "Package versions that built this report": package_versions(),
    }


def metric_key(cfg: Config) -> str:
    """``classification``, ``regression`` or ``rounding-<activation>``: a metrics file name."""
    return cfg.approach if cfg.approach != "rounding" else f"rounding-{cfg.activation}"


def write_metrics(headlines: dict[str, sections.Headline], metrics_dir: Path) -> list[Path]:
    """Headline means for ``dvc metrics show``, one file per approach (and one for the constant
    baseline) mapping dataset -> exact_match, mae, extrapolation (test exact match, test MAE,
    extrapolation exact match), so that the table DVC prints has a row per approach, like the
    report's. The intervals are in the report: DVC shows one number per key. A missing value
    (no extrapolation split) is null."""
    rows: dict[str, dict[str, dict]] = {}
    for dataset, h in headlines.items():
        for cfg in h.rows:
            rows.setdefault(metric_key(cfg), {})[dataset] = {
                "exact_match": _num(cfg.metric("test", "exact_match").mean),
                "mae": _num(cfg.metric("test", "mae").mean),
                "extrapolation": _num(cfg.metric("extrapolate", "exact_match").mean),
            }
        rows.setdefault("baseline", {})[dataset] = {
            "exact_match": _num(h.baseline[("test", "exact_match")].mean),
            "mae": _num(h.baseline[("test", "mae")].mean),
            "extrapolation": _num(h.baseline[("extrapolate", "exact_match")].mean),
        }
    metrics_dir.mkdir(parents=True, exist_ok=True)
    for stale in metrics_dir.glob("*.json"):
        stale.unlink()
    paths = []
    for name, entry in rows.items():
        path = metrics_dir / f"{name}.json"
        path.write_text(json.dumps(entry, indent=2) + "\n")
        paths.append(path)
    return paths


def _num(value: float) -> float | None:
    return round(value, 4) if value == value else None  # NaN is not JSON


PLOT_COLUMNS = (
    "value",
    "val_exact_match",
    "test_exact_match",
    "test_mae",
    "zero_grad_fraction",
    "seeds",
)


def write_plots(groups: dict[str, list[Config]], plot_dir: Path) -> list[Path]:
    """One CSV per (dataset, swept activation), x = the parameter value, for ``dvc plots``."""
    plot_dir.mkdir(parents=True, exist_ok=True)
    for stale in plot_dir.glob("*.csv"):
        stale.unlink()
    paths = []
    for dataset, cfgs in groups.items():
        families: dict[str, list[Config]] = {}
        for c in cfgs:
            if c.approach == "rounding" and c.param is not None and c.finished:
                families.setdefault(c.activation, []).append(c)
        for activation, members in sorted(families.items()):
            path = plot_dir / f"sweep-{dataset}-{activation}.csv"
            with path.open("w", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow(PLOT_COLUMNS)
                for c in sorted(members, key=lambda c: c.param[1]):
                    writer.writerow(
                        [
                            f"{c.param[1]:g}",
                            _csv(c.metric("val", "exact_match").mean),
                            _csv(c.metric("test", "exact_match").mean),
                            _csv(c.metric("test", "mae").mean),
                            _csv(c.zero_grad_fraction().mean),
                            len(c.finished),
                        ]
                    )
            paths.append(path)
    return paths


def _csv(value: float) -> str:
    return "" if value != value else f"{value:.4f}"
