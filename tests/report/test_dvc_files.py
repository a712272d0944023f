"""The files DVC reads: one metrics file per headline row, methods keyed apart."""

from __future__ import annotations

import json

from test_ordinal_and_reference_rows import count_headline

from roundlab.report.dvc_files import metric_key, write_metrics
from roundlab.report.selection import Configuration


def test_an_approach_with_methods_gets_a_metrics_key_per_method():
    keys = [
        metric_key(Configuration("count", "ordinal", None, {}, method="corn")),
        metric_key(Configuration("count", "ordinal", None, {}, method="coral")),
        metric_key(Configuration("count", "lightgbm", None, {}, method="poisson")),
        metric_key(Configuration("count", "rounding", "ste_round", {})),
        metric_key(Configuration("count", "regression", None, {})),
    ]
    assert keys == [
        "ordinal-corn",
        "ordinal-coral",
        "lightgbm-poisson",
        "rounding-ste_round",
        "regression",
    ]


def test_corn_and_coral_each_have_their_own_metrics_file(tmp_path):
    h, _ = count_headline()
    paths = write_metrics({"count": h}, tmp_path)
    files = {p.stem: json.loads(p.read_text()) for p in paths}
    assert sorted(files) == [
        "baseline",
        "classification",
        "glm_poisson",
        "ordered_logit",
        "ordinal-coral",
        "ordinal-corn",
        "poisson",
        "regression",
    ]
    assert files["ordinal-corn"]["count"]["exact_match"] == 0.7
    assert files["ordinal-coral"]["count"]["exact_match"] == 0.65


def test_a_dataset_without_a_recommendation_says_so_and_keeps_its_headline_keys(tmp_path):
    from synthetic_results import _run

    from roundlab.report.dvc_files import write_headline
    from roundlab.report.headline import headline
    from roundlab.report.selection import group

    runs = [_run("count", "regression", s, 0.6, 0.5, converged=False) for s in range(3)]
    path = write_headline({"count": headline("count", group(runs)["count"])}, tmp_path / "h.json")
    (row,) = json.loads(path.read_text()).values()
    assert row["best"] == "no recommendation (none converged); best on val: regression"
    assert row["exact_match"] is not None and row["mae"] is not None


def test_a_reference_whose_optimiser_did_not_converge_publishes_no_numbers(tmp_path):
    """Its numbers are where BFGS stopped, which moves with the CPU's BLAS kernels; a network or
    LightGBM that did not converge stopped at a budget, so its numbers stay."""
    from synthetic_results import _run

    from roundlab.report.dvc_files import write_headline
    from roundlab.report.headline import headline
    from roundlab.report.selection import group

    def fit(approach, engine, converged):
        run = _run("affine", approach, 0, 0.98, 0.02, converged=converged)
        run.engine = {"name": engine}
        return run

    runs = [
        fit("ordered_logit", "statsmodels", False),
        fit("glm_poisson", "statsmodels", True),
        fit("lightgbm", "lightgbm", False),
        *(_run("affine", "regression", s, 0.6, 0.5, converged=False) for s in range(3)),
    ]
    h = headline("affine", group(runs)["affine"])
    files = {p.stem: json.loads(p.read_text()) for p in write_metrics({"affine": h}, tmp_path)}
    assert files["ordered_logit"]["affine"] == {
        "exact_match": None,
        "mae": None,
        "extrapolation": None,
    }
    assert files["glm_poisson"]["affine"]["exact_match"] == 0.97
    assert files["lightgbm-multiclass"]["affine"]["exact_match"] == 0.97
    assert files["regression"]["affine"]["exact_match"] == 0.6
    (row,) = json.loads(write_headline({"affine": h}, tmp_path / "h.json").read_text()).values()
    assert row["best"] == "glm_poisson (reference)"
