"""Verdicts that follow their own rule: an unconverged network blocks only the comparisons it
takes part in (leader against runner-up), and a reference whose statsmodels fit did not converge
is left out of the column with a note, blocking nothing."""

from synthetic_results import EPOCHS, _run

from roundlab.report.selection import HEADLINE_COLUMNS, group
from roundlab.report.tuning import tune_groups
from roundlab.report.verdicts import verdict
from roundlab.report.winner import winner

TEST_EXACT_MATCH = HEADLINE_COLUMNS[0]


def _groups(runs):
    return tune_groups(group(runs))


def test_an_unconverged_row_blocks_only_the_comparisons_it_takes_part_in():
    runs = [_run("count", "classification", s, 0.9, 0.3) for s in range(3)]
    runs += [_run("count", "regression", s, 0.5, 0.8) for s in range(3)]
    runs += [_run("count", "poisson", s, 0.3, 0.5, converged=s != 0) for s in range(3)]
    groups = _groups(runs)
    exact_match, mae = (
        winner(groups["count"], HEADLINE_COLUMNS[0]),
        winner(groups["count"], HEADLINE_COLUMNS[1]),
    )
    # exact match: classification leads regression, poisson trails: the verdict stands
    assert exact_match.clear and not exact_match.refused
    assert exact_match.leader.approach == "classification"
    # MAE: classification 0.3 leads poisson 0.5, poisson takes part: no verdict
    assert mae.refused and [c.approach for c in mae.unconverged] == ["poisson"]
    assert verdict(mae) == (
        f"test MAE: no verdict: poisson did not converge within {EPOCHS} epochs."
    )


def test_an_unconverged_reference_is_left_out_with_a_note_and_blocks_nothing():
    runs = [_run("count", "classification", s, 0.9, 0.3) for s in range(3)]
    runs += [_run("count", "regression", s, 0.5, 0.8) for s in range(3)]
    runs += [_run("count", "ordered_logit", s, 0.95, 0.1, converged=False) for s in range(3)]
    w = winner(_groups(runs)["count"], TEST_EXACT_MATCH)
    assert w.clear and w.leader.approach == "classification"
    assert w.runner_up.approach == "regression" and not w.refused
    assert verdict(w) == (
        "test exact match: **classification** is best; its interval does not overlap the "
        "runner-up's (regression) (ordered_logit (reference) left out: its fit did not converge: "
        "statsmodels' optimiser stopped)."
    )


def test_a_lead_is_clear_only_when_it_overlaps_no_row_not_only_the_runner_up():
    runs = [_run("count", "classification", s, 0.9, 0.3) for s in range(3)]
    runs += [_run("count", "regression", s, 0.7, 0.8) for s in range(3)]
    runs += [_run("count", "poisson", s, 0.6, 0.8) for s in range(3)]
    for run, em in zip(runs[-3:], (0.3, 0.6, 0.9), strict=True):  # a wide interval reaching 0.9
        run.metrics["test"]["exact_match"] = em
    w = winner(_groups(runs)["count"], TEST_EXACT_MATCH)
    assert w.leader.approach == "classification" and w.runner_up.approach == "regression"
    lead, wide = (
        w.leader.metric("test", "exact_match"),
        _groups(runs)["count"][-1].metric("test", "exact_match"),
    )
    assert not lead.overlaps(w.runner_up.metric("test", "exact_match")) and lead.overlaps(wide)
    assert not w.clear
