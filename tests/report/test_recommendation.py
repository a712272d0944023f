"""The recommendation and its tie sets on hand-made results: chosen on val, reported on test,
as good = test intervals overlap, clearly better named; rows left out never recommended."""

from __future__ import annotations

import json
import re

import pytest
from synthetic_results import _run, synthetic_runs, write_runs

from roundlab.report.document import Bullets, Table
from roundlab.report.headline import headline
from roundlab.report.pipeline import build_report
from roundlab.report.recommendation import (
    CANNOT_EXTRAPOLATE,
    DEGENERATE,
    NOT_CONVERGED,
    NOT_CONVERGED_REFERENCE,
    recommend,
    recommendations,
)
from roundlab.report.recommendation_sections import recommendation_blocks
from roundlab.report.selection import HEADLINE_COLUMNS, group
from roundlab.report.tuning import tune

EXACT, MAE, EXTRAPOLATION = HEADLINE_COLUMNS


def _runs(approach, val, test, *, activation=None, extrapolate=None, mae=None, converged=True):
    """Three seeds whose val exact match is ``val`` on every seed and whose test exact match
    (and test MAE = 1 − exact match unless ``mae`` is given) are ``test`` seed by seed."""
    out = []
    for seed, em in enumerate(test):
        r = _run("count", approach, seed, 0.5, 0.5, activation, converged=converged)
        r.metrics["val"] = {"exact_match": val, "mae": 1 - val}
        r.metrics["test"] = {"exact_match": em, "mae": mae[seed] if mae else 1 - em}
        r.metrics["extrapolate"] = {"exact_match": (extrapolate or test)[seed], "mae": 2.0}
        r.baseline["test"]["exact_match"] = 0.1
        out.append(r)
    return out


def _headline(runs):
    return headline("count", tune(group(runs)["count"]))


def _families(configs):
    return [c.family for c in configs]


def test_recommendation_is_the_val_leader_and_as_good_means_test_intervals_overlap():
    # test intervals (t, 2 df = 4.303): classification 0.81 ± 0.025, regression 0.82 ± 0.050
    # (overlaps), poisson 0.61 ± 0.025 (apart, below)
    runs = _runs("classification", 0.90, (0.80, 0.81, 0.82))
    runs += _runs("regression", 0.85, (0.80, 0.82, 0.84))
    runs += _runs("poisson", 0.80, (0.60, 0.61, 0.62))
    rec = recommend(_headline(runs), EXACT)
    assert rec.recommended.family == "classification" and rec.chosen_on == "val"
    assert rec.recommended.metric("test", "exact_match").half_width == pytest.approx(
        4.302653 * 0.01 / 3**0.5, abs=1e-6
    )
    assert _families(rec.as_good) == ["regression"]
    assert _families(rec.worse) == ["poisson"] and rec.better == () and rec.left_out == ()


def test_a_row_clearly_better_on_test_than_the_val_choice_is_named_not_hidden():
    runs = _runs("classification", 0.90, (0.80, 0.81, 0.82))
    runs += _runs("regression", 0.70, (0.95, 0.96, 0.97))  # worse on val, better on test
    rec = recommend(_headline(runs), EXACT)
    assert rec.recommended.family == "classification"
    assert _families(rec.better) == ["regression"] and rec.as_good == rec.worse == ()
    (_heading, table, _rule, notes) = recommendation_blocks([rec])
    assert isinstance(table, Table) and isinstance(notes, Bullets)
    assert notes.items == (
        "count, test exact match: regression clearly better on test than the val choice "
        "classification",
    )


def test_mae_is_chosen_on_val_mae_not_on_val_exact_match():
    runs = _runs("classification", 0.90, (0.80, 0.81, 0.82), mae=(0.9, 0.9, 0.9))
    runs += _runs("regression", 0.85, (0.70, 0.71, 0.72), mae=(0.3, 0.31, 0.32))
    for r in runs:
        if r.approach == "regression":
            r.metrics["val"]["mae"] = 0.05  # the lower val MAE (classification 0.10), the lower
            # val exact match
    rec = recommend(_headline(runs), MAE)
    assert rec.recommended.family == "regression"
    assert rec.recommended.metric("test", "mae").mean == pytest.approx(0.31)
    assert _families(rec.worse) == ["classification"]


def test_unconverged_rows_are_left_out_with_their_reason_and_never_recommended():
    runs = _runs("classification", 0.99, (0.90, 0.91, 0.92), converged=False)
    runs += _runs("ordered_logit", 0.98, (0.95, 0.95, 0.95), converged=False)
    runs += _runs("regression", 0.80, (0.80, 0.81, 0.82))
    runs += _runs("rounding", 0.97, (0.9, 0.9, 0.9), activation="identity")  # a control
    # degenerate: val exact match not above the constant's (0.15 on val); judged on val, so a
    # row poor on test alone is not left out for it
    runs += _runs("rounding", 0.10, (0.05, 0.06, 0.04), activation="spiky")
    rec = recommend(_headline(runs), EXACT)
    assert rec.recommended.family == "regression"
    assert [(c.family, why) for c, why in rec.left_out] == [
        ("classification", NOT_CONVERGED),
        ("spiky", DEGENERATE),
        ("ordered_logit", NOT_CONVERGED_REFERENCE),
    ]
    assert rec.as_good == rec.worse == rec.better == ()


def test_extrapolation_is_chosen_on_its_own_split_among_rows_that_can_extrapolate():
    runs = _runs("classification", 0.95, (0.9, 0.9, 0.9), extrapolate=(0.9, 0.9, 0.9))
    runs += _runs("regression", 0.90, (0.8, 0.8, 0.8), extrapolate=(0.30, 0.31, 0.32))
    runs += _runs("poisson", 0.80, (0.7, 0.7, 0.7), extrapolate=(0.50, 0.51, 0.52))
    h = _headline(runs)
    rec = recommend(h, EXTRAPOLATION)
    assert rec.chosen_on == "extrapolate" and rec.recommended.family == "poisson"
    assert _families(rec.worse) == ["regression"]
    assert [(c.family, why) for c, why in rec.left_out] == [("classification", CANNOT_EXTRAPOLATE)]
    assert [r.column for r in recommendations(h)] == list(HEADLINE_COLUMNS)
    row = recommendation_blocks([rec])[1].rows[0]
    assert row[2] == "**poisson** ‡ (0.510 ± 0.025)"


def test_headline_json_best_is_the_reports_recommendation(tmp_path):
    runs = synthetic_runs()
    for r in runs:  # the val leader of count does not converge: it cannot be recommended
        if r.dataset == "count" and r.activation == "sigmoid_round" and r.seed == 1:
            r.converged = False
    results = write_runs(tmp_path / "results", runs)
    build_report(results, tmp_path / "reports", tmp_path, gradients=False)
    best = json.loads((tmp_path / "reports" / "headline.json").read_text())
    md = (tmp_path / "reports" / "report.md").read_text()
    # the recommendation opens the report, right after the introduction
    assert re.findall(r"^## (.+)$", md, flags=re.M)[:3] == [
        "Recommendation",
        "Across datasets",
        "Answers in short",
    ]
    table = md.split("## Recommendation")[1].split("How to read it")[0]
    rows = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in table.splitlines()
        if "| test exact match |" in line
    ]
    used = {cells[0]: cells[2].split("**")[1] for cells in rows}
    assert used == {"count": "classification", "digit_sum": "sigmoid_round"}
    assert best["count"]["best"] == "classification"
    assert best["digit_sum"]["best"] == "rounding · sigmoid_round steepness=20"
    assert set(best["count"]) == {"best", "exact_match", "mae"}
    assert best["count"]["exact_match"] == pytest.approx(0.80)


def test_the_studys_terminal_answer_names_the_rows_left_out_as_the_report_does():
    """`roundlab study` prints a line per metric; a row left out of every choice (here an
    unconverged classification) is named with its reason after them, in the report's words."""
    from roundlab.study.answer import lines

    runs = _runs("classification", 0.99, (0.90, 0.91, 0.92), converged=False)
    runs += _runs("regression", 0.80, (0.80, 0.81, 0.82))
    recs = recommendations(_headline(runs))
    printed = lines(recs)
    assert len(printed) == len(recs) + 1
    assert all(": use regression" in text for text in printed[: len(recs)])
    note = f"count: left out, never recommended: classification ({NOT_CONVERGED})"
    assert printed[-1] == note
    bullets = recommendation_blocks(recs)[-1]
    assert isinstance(bullets, Bullets) and note in bullets.items
