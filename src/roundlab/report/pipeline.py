"""Build the report from result files: reports/report.md, report.html, figures/, metrics/
(``dvc metrics show``) and plots/ (the data behind ``dvc plots show``).

The three layers meet here: the numbers are computed (selection, tuning, headline, protocol,
curves, gradients), the figures drawn from them (figures, activation_figures), and the document
written from both (headline_sections, method, sections, gradient_sections, summary), rendered once
to Markdown and once to HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from roundlab import paths
from roundlab import results as results_io
from roundlab.report import (
    activation_figures,
    cost,
    curves,
    dvc_files,
    environment,
    figures,
    render,
    sections,
    summary,
)
from roundlab.report.document import Block, Document, Heading, Paragraph
from roundlab.report.gradient_sections import gradient_blocks
from roundlab.report.gradients import compute_gradients, gallery_rows
from roundlab.report.headline import headline
from roundlab.report.headline_sections import headline_blocks
from roundlab.report.method import method_blocks
from roundlab.report.planned import RECOMPUTED, missing_runs, planned_runs
from roundlab.report.protocol import protocol
from roundlab.report.ranking_section import ranking_blocks
from roundlab.report.recommendation import recommendations
from roundlab.report.recommendation_sections import recommendation_blocks
from roundlab.report.selection import Configuration, group, swept_values
from roundlab.report.tuning import tune_groups

TITLE = "roundlab: training networks whose targets are integers"
LEFT_OUT = "Left out of this build (--no-gradients)."
SWEEP_INTRODUCTION = (
    "Each rounding activation against its knob: exact match on val and test, test MAE, "
    "and the fraction of training examples whose loss gradient with respect to the "
    "output unit is exactly zero at the end of training: those examples teach the "
    "network nothing more. It is zero where the surrogate's slope is zero (sine_round "
    "outside its window) and, for activations that round in the forward pass "
    "(ste_round, comb_round), wherever the rounded output already equals the label."
)


@dataclass(frozen=True)
class Outputs:
    markdown: Path
    html: Path
    metrics: list[Path]
    figures: list[Path]
    plots: list[Path]


def _fresh_figures(reports_dir: Path) -> Path:
    figdir = reports_dir / "figures"
    figdir.mkdir(parents=True, exist_ok=True)
    for stale in figdir.glob("*.png"):  # a dataset dropped from the sweep leaves no old figure
        stale.unlink()
    return figdir


def _introduction(runs, groups, manifest: dict, results_dir: Path) -> Paragraph:
    n_ok = sum(r.ok for r in runs)
    profile = f"sweep profile `{manifest.get('profile', 'unknown')}`"
    if manifest.get(RECOMPUTED):
        profile += (
            f" (its plan recomputed from {manifest[RECOMPUTED]}: "
            f"`{paths.SWEEP_MANIFEST}` is missing)"
        )
    unverified = [r for r in runs if r.digest is None]
    older = (
        f" {len(unverified)} result files predate content digests (format_version < "
        f"{results_io.DIGEST_SINCE}): nothing vouches that they hold what training wrote."
        if unverified
        else ""
    )
    return Paragraph(
        f"{len(runs)} runs ({n_ok} finished, {sections.failure_counts(runs)}) in "
        f"{sum(len(c) for c in groups.values())} configurations on {len(groups)} datasets, "
        f"{profile}. Built from the result files under `{results_dir.name}/` alone, each "
        f"checked against its content digest.{older} Every learning rate and setting is chosen "
        "on the validation split and reported on the test split; the Method section says how, "
        "and how small a difference each table could detect."
    )


def _result_sections(groups: dict[str, list[Configuration]], headlines, sweeps, figdir: Path):
    """Sections 1, 2 and 4: headline tables, sweep curves and learning curves per dataset."""
    table_blocks: list[Block] = [Heading("1. Headline results per dataset")]
    sweep_blocks: list[Block] = [Heading("2. Sweep curves"), Paragraph(SWEEP_INTRODUCTION)]
    learning_blocks: list[Block] = [Heading("4. Learning curves")]
    for dataset, configs in groups.items():
        h = headlines[dataset]
        table_blocks += headline_blocks(h)
        refs = curves.sweep_references(h)
        png = figures.sweep_curves(dataset, sweeps[dataset], refs, figdir / f"sweep-{dataset}.png")
        sweep_blocks += sections.sweep_blocks(dataset, sweeps[dataset], png)
        best = curves.best_configurations(configs)
        png = figures.learning_curves(
            dataset, curves.learning_curves(best), figdir / f"learning-{dataset}.png"
        )
        learning_blocks += sections.learning_blocks(dataset, best, png)
    return table_blocks, sweep_blocks, learning_blocks


def _gradient_sections(grad, swept: dict[str, list[float]], figdir: Path):
    """Sections 3 and 5: the gallery and the gradient checks (both left out without ``grad``)."""
    if grad is None:
        return [Paragraph(LEFT_OUT)], [Paragraph(LEFT_OUT)]
    gallery = activation_figures.gallery(gallery_rows(swept), figdir / "gallery.png")
    checks = activation_figures.gradient_checks(grad, figdir / "gradient-checks.png")
    return sections.gallery_blocks(gallery), gradient_blocks(grad, checks)


def build_report(
    results_dir: Path,
    reports_dir: Path,
    root: Path,
    *,
    gradients: bool = True,
    with_cost: bool = True,
    profile: str | None = None,
) -> Outputs:
    """Write the report. ``gradients`` False leaves out the sections computed from
    roundlab.activations (gallery, gradient checks); ``with_cost`` False leaves out the numpy cost
    recorded in ``<root>/bench/numpy_cost.json``; ``profile`` names the sweep profile whose plan
    the results should hold when their manifest is missing (:mod:`roundlab.report.planned`).
    Nothing is timed: the same inputs give the same bytes. Raises
    :class:`roundlab.results.UnreadableResult` for a result file that is unreadable or was
    edited (before anything is written), WriteFailed for a file it cannot write."""
    results_dir, reports_dir = Path(results_dir), Path(reports_dir)
    manifest = planned_runs(results_dir, root, profile)
    runs = results_io.read_all(results_dir)
    if manifest.get("datasets") is not None:  # a dataset outside the plan left its files
        runs = [r for r in runs if r.dataset in manifest["datasets"]]
    figdir = _fresh_figures(reports_dir)
    groups = tune_groups(group(runs))
    swept = swept_values(groups)
    headlines = {d: headline(d, cfgs) for d, cfgs in groups.items()}
    sweeps = {d: curves.sweep_curves(cfgs) for d, cfgs in groups.items()}
    grad = None
    if gradients:
        grad = compute_gradients(swept, cost.read(root / cost.RECORD) if with_cost else None)

    doc = Document(TITLE)
    doc.add(_introduction(runs, groups, manifest, results_dir))
    recs = [r for h in headlines.values() for r in recommendations(h)]
    doc.add(*recommendation_blocks(recs))
    doc.add(*ranking_blocks(headlines, figdir))
    doc.add(*summary.summary_blocks(headlines, groups, grad, recs))
    doc.add(*method_blocks(protocol(runs, groups, headlines)))
    tables, sweep_curves, learning = _result_sections(groups, headlines, sweeps, figdir)
    gallery, checks = _gradient_sections(grad, swept, figdir)
    doc.add(*tables, *sweep_curves, Heading("3. Activation gallery"), *gallery, *learning)
    doc.add(Heading("5. Gradient checks"), *checks, Heading("6. Failed runs"))
    doc.add(*sections.failed_blocks(runs, missing_runs(results_dir, manifest)))
    env = environment.tables(runs, manifest, root)
    doc.add(Heading("7. Environment"), *sections.environment_blocks(env))

    md_path = paths.atomic_write(reports_dir / "report.md", render.to_markdown(doc, reports_dir))
    html_path = paths.atomic_write(reports_dir / "report.html", render.to_html(doc))
    metrics = [
        dvc_files.write_headline(headlines, reports_dir / "headline.json"),
        *dvc_files.write_metrics(headlines, reports_dir / "metrics"),
    ]
    plots = dvc_files.write_plots(sweeps, reports_dir / "plots")
    return Outputs(md_path, html_path, metrics, [f.path for f in doc.figures()], plots)
