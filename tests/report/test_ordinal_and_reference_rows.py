"""The headline rows of the ordinal methods, the poisson head and the classical references:
one row per ordinal method, references labelled and never tuned, and the rows that cannot
predict outside the training range left out of the extrapolation choice."""

from __future__ import annotations

import pytest
from synthetic_results import _run

from roundlab.report import answers
from roundlab.report.document import Table
from roundlab.report.headline import headline
from roundlab.report.headline_sections import NOT_TUNED, headline_blocks
from roundlab.report.recommendation import CANNOT_EXTRAPOLATE, recommend
from roundlab.report.selection import HEADLINE_COLUMNS, group
from roundlab.report.tuning import tune

# (approach, method, test exact match): each trained at two learning rates, three seeds.
ROWS = [
    ("classification", None, 0.60),
    ("regression", None, 0.50),
    ("ordinal", "corn", 0.70),
    ("ordinal", "coral", 0.65),
    ("poisson", None, 0.55),
    ("glm_poisson", None, 0.45),
    ("ordered_logit", None, 0.58),
]


def runs():
    out = []
    for approach, method, em in ROWS:
        for lr in (1e-3, 1e-2):
            for seed in (0, 1, 2):
                r = _run("count", approach, seed, em, 0.4, lr=lr)
                if method:
                    r.config["approach"] = {"name": approach, "method": method}
                out.append(r)
    return out


def count_headline():
    configs = tune(group(runs())["count"])
    return headline("count", configs), configs


def test_each_ordinal_method_is_a_row_of_its_own_and_references_are_labelled():
    h, _ = count_headline()
    assert [c.label for c in h.rows] == [
        "classification",
        "regression",
        "ordinal · coral",
        "ordinal · corn",
        "poisson",
        "glm_poisson (reference)",
        "ordered_logit (reference)",
    ]
    corn = next(c for c in h.rows if c.method == "corn")
    assert corn.metric("test", "exact_match").mean == pytest.approx(0.70) and len(corn.runs) == 3


def test_a_reference_row_shows_no_learning_rate_and_the_baseline_row_stays():
    h, _ = count_headline()
    table = next(b for b in headline_blocks(h) if isinstance(b, Table))
    by_label = {row[0]: row for row in table.rows}
    assert by_label["glm_poisson (reference)"][2] == NOT_TUNED
    assert by_label["ordinal · corn"][2] == "0.001"
    assert "constant baseline (training median)" in by_label


def test_rows_confined_to_the_training_range_are_left_out_of_the_extrapolation_choice():
    h, _ = count_headline()
    rec = recommend(h, HEADLINE_COLUMNS[2])
    assert sorted(c.label for c, why in rec.left_out if why == CANNOT_EXTRAPOLATE) == [
        "classification",
        "ordered_logit (reference)",
        "ordinal · coral",
        "ordinal · corn",
    ]
    assert rec.recommended.label == "poisson"  # 0.55 / 2 beats regression and glm_poisson


def test_the_in_range_answer_names_each_ordinal_method():
    r = _run("count", "rounding", 0, 0.6, 0.4, "ste_round")
    rounding = tune(group([r, *runs()])["count"])
    against = answers.in_range(headline("count", rounding), rounding).against
    assert {"ordinal · corn", "ordinal · coral", "glm_poisson (reference)"} <= {
        a.approach for a in against
    }


def test_a_report_with_ordinal_poisson_and_reference_rows_builds_with_its_sweep_figures(tmp_path):
    from synthetic_results import synthetic_runs, write_runs

    from roundlab.report.pipeline import build_report

    extra = [r for r in runs() if r.approach not in ("classification", "regression")]
    results_dir = write_runs(tmp_path / "results", [*synthetic_runs(), *extra])
    out = build_report(results_dir, tmp_path / "reports", tmp_path, gradients=False)
    md = out.markdown.read_text()
    count = md.split("### count")[1].split("### ")[0]
    for label in ("ordinal · corn", "ordinal · coral", "poisson", "glm_poisson (reference)"):
        assert label in count, label
    assert (tmp_path / "reports" / "figures" / "sweep-count.png").is_file()


def test_a_network_is_compared_with_a_reference_as_with_a_fixed_number():
    # rounding at 0.60 ± 0.025 (three seeds); glm_poisson 0.45 and ordered_logit 0.58 exactly
    r = [_run("count", "rounding", s, 0.6, 0.4, "ste_round") for s in (0, 1, 2)]
    configs = tune(group([*r, *runs()])["count"])
    against = {a.approach: a for a in answers.in_range(headline("count", configs), configs).against}
    assert against["glm_poisson (reference)"].exact_match == "better"
    assert against["ordered_logit (reference)"].exact_match.startswith("indistinguishable")
    glm = next(c for c in configs if c.approach == "glm_poisson")
    assert glm.metric("test", "exact_match").format() == "0.450 (deterministic)"


def test_a_reference_with_methods_has_one_labelled_exact_row_per_method():
    fits = []
    for method, em in (("multiclass", 0.62), ("regression", 0.64), ("poisson", 0.57)):
        r = _run("count", "lightgbm", 1, em, 0.4)  # seed 1: no jitter, the value itself
        r.config["approach"] = {"name": "lightgbm", "method": method}
        fits.append(r)
    configs = tune(group(fits)["count"])
    assert [c.label for c in configs] == [
        "lightgbm · multiclass (reference)",
        "lightgbm · poisson (reference)",
        "lightgbm · regression (reference)",
    ]
    poisson = configs[1].metric("test", "exact_match")
    assert (poisson.mean, poisson.exact) == (pytest.approx(0.57), True)
    assert all(c.is_reference for c in configs)
