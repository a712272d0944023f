"""The protocol's flags in the computed values and in the document: not converged refuses a
verdict, degenerate rows never lead, the oracle row and gap, the detectable difference."""

import pytest
from synthetic_results import EPOCHS, _run, synthetic_runs

from roundlab.report import answers, summary
from roundlab.report.headline import headline
from roundlab.report.headline_sections import ORACLE_GAP, headline_blocks
from roundlab.report.method import method_blocks
from roundlab.report.protocol import protocol
from roundlab.report.recommendation import recommend
from roundlab.report.selection import HEADLINE_COLUMNS, group
from roundlab.report.tuning import tune_groups
from roundlab.report.verdicts import verdict
from roundlab.report.winner import winner

TEST_EXACT_MATCH = HEADLINE_COLUMNS[0]


def _groups(runs):
    return tune_groups(group(runs))


def _unconverged(runs, approach, seed=1):
    for r in runs:
        if r.approach == approach and r.seed == seed and r.ok:
            r.converged = False
    return runs


def _text(blocks):
    out = []
    for b in blocks:
        for attr in ("text", "items", "rows", "header"):
            value = getattr(b, attr, None)
            out.append(repr(value) if value is not None else "")
    return "\n".join(out)


def test_one_seed_at_the_budget_makes_the_configuration_unconverged():
    runs = [_run("count", "regression", s, 0.6, 0.5, converged=s != 1) for s in range(3)]
    (cfg,) = _groups(runs)["count"]
    assert not cfg.converged and cfg.epochs == EPOCHS
    runs[1].converged = None  # not recorded (older result files) is not a failure to converge
    assert _groups(runs)["count"][0].converged


def test_winner_refuses_a_verdict_when_a_compared_row_did_not_converge():
    runs = [_run("count", "classification", s, 0.9, 0.3) for s in range(3)]
    runs += [_run("count", "regression", s, 0.5, 0.5, converged=s != 0) for s in range(3)]
    w = winner(_groups(runs)["count"], TEST_EXACT_MATCH)
    assert w.leader.approach == "classification" and not w.clear and w.refused
    assert [c.approach for c in w.unconverged] == ["regression"]
    assert verdict(w) == (
        f"test exact match: no verdict: regression did not converge within {EPOCHS} epochs."
    )


def test_every_answer_refuses_where_a_contender_did_not_converge():
    groups = _groups(_unconverged(synthetic_runs(), "classification"))
    h = headline("count", groups["count"])
    item = answers.in_range(h, groups["count"])
    refused = {a.approach: a.refused for a in item.against}
    assert refused["classification"].startswith("no verdict: classification did not converge")
    assert refused["regression"] is None
    # classification is the runner-up of every column: each of its comparisons is refused
    assert [w.runner_up.approach for w in h.winners] == ["classification"] * 3
    assert all(w.refused for w in h.winners)

    groups = _groups(_unconverged(synthetic_runs(), "rounding"))
    (sigmoid, _soft) = answers.knobs(groups)
    assert dict(sigmoid.withheld)["count"].startswith("no verdict: rounding · sigmoid_round")
    bullet = summary.knob_bullets([sigmoid])[0]
    assert "no verdict (not converged) on count" in bullet and "20 on count" not in bullet


def test_unconverged_rows_are_marked_and_listed_in_the_convergence_paragraph():
    runs = _unconverged(synthetic_runs(), "regression")
    groups = _groups(runs)
    headlines = {d: headline(d, c) for d, c in groups.items()}
    table = headline_blocks(headlines["count"])[1]
    assert [row[0] for row in table.rows if row[0].startswith("regression")] == [
        "regression (not converged)"
    ]
    method = _text(method_blocks(protocol(runs, groups, headlines)))
    assert "count: regression, learning rate 0.01: 1 of 3 seeds at the budget of 6 epochs" in (
        method
    )


def _spiky_runs():
    runs = []
    for s in range(3):
        runs.append(_run("count", "regression", s, 0.6, 0.5))
        runs.append(_run("count", "classification", s, 0.5, 0.7))
        spiky = _run("count", "rounding", s, 0.0, 6.0, "spiky")
        # no better than the constant on val (its baseline there: 0.15): degenerate, yet the
        # only rounding configuration, so the in-range answer still picks it
        spiky.metrics["val"]["exact_match"] = 0.1
        spiky.metrics["extrapolate"]["exact_match"] = 0.9  # a constant that happens to hit
        runs.append(spiky)
    return runs


def test_degenerate_configuration_keeps_its_row_but_never_wins_an_answer():
    groups = _groups(_spiky_runs())
    h = headline("count", groups["count"])
    spiky = next(c for c in h.rows if c.activation == "spiky")
    assert spiky.degenerate and not h.rows[0].degenerate
    assert all(w.leader is not spiky for w in h.winners)
    rec = recommend(h, HEADLINE_COLUMNS[2])
    assert rec.recommended.approach == "regression"
    assert all(c is not spiky for c in (*rec.as_good, *rec.worse, *rec.better))
    assert summary.extrapolation_bullets([rec]) == (
        "count: regression 0.30; rounding activations as good: none.",
    )
    in_range = answers.in_range(h, groups["count"])
    assert in_range.rounding is spiky  # chosen on val, as always ...
    assert all(
        a.refused.endswith(
            "is degenerate (its val exact match is not above the constant baseline's)"
        )
        for a in in_range.against
    )  # ... no verdict
    table = headline_blocks(h)[1]
    assert "rounding · spiky (degenerate)" in [row[0] for row in table.rows]


def test_oracle_row_and_gap_only_where_the_dataset_has_an_oracle():
    groups = _groups(synthetic_runs())
    count, digit_sum = (headline(d, groups[d]) for d in ("count", "digit_sum"))
    assert count.oracle == {("test", "exact_match"): 1.0, ("test", "mae"): 0.0}
    assert digit_sum.oracle == {}
    table = headline_blocks(count)[1]
    gap = table.header.index(ORACLE_GAP)
    rows = {row[0]: row for row in table.rows}
    assert rows["oracle (Bayes predictor)"][4:6] == ("1.000", "0.000")
    assert rows["rounding · sigmoid_round"][gap] == "0.050"  # 1.0 − 0.95
    assert rows["constant baseline (training median)"][gap] == "0.880"  # 1.0 − 0.12
    other = headline_blocks(digit_sum)[1]
    assert ORACLE_GAP not in other.header
    assert not any(row[0].startswith("oracle") for row in other.rows)


def test_no_clear_winner_states_the_detectable_difference():
    runs = []
    for s, (a, b) in enumerate([(0.6, 0.7), (0.9, 0.72), (0.75, 0.71)]):
        runs.append(_run("count", "classification", s, 0.5, 0.5))
        runs.append(_run("count", "regression", s, 0.5, 0.5))
        runs[-2].metrics["test"]["exact_match"] = a
        runs[-1].metrics["test"]["exact_match"] = b
    w = winner(_groups(runs)["count"], TEST_EXACT_MATCH)
    # s1 = 0.15 (0.6, 0.9, 0.75), s2 = 0.01 (0.70, 0.72, 0.71), n = 3 each, df = 4:
    # (2.776445 + 0.940965) · sqrt(0.0225/3 + 0.0001/3) = 3.717410 · 0.086795 = 0.322652
    assert not w.clear and w.detectable == pytest.approx(0.322652, abs=1e-5)
    assert verdict(w).endswith("the smallest difference these seeds could detect is 0.323.")


def test_method_states_grid_trials_budget_and_each_tables_detectable_difference():
    runs = synthetic_runs()
    groups = _groups(runs)
    headlines = {d: headline(d, c) for d, c in groups.items()}
    p = protocol(runs, groups, headlines)
    assert p.grid == (1e-3, 1e-2) and p.epochs == (EPOCHS,)
    assert p.trials["sigmoid_round"] == (6,) and p.trials["classification"] == (2,)
    text = _text(method_blocks(p))
    assert "Learning-rate grid: 0.001, 0.01" in text
    assert "sigmoid_round 6" in text and "classification 2" in text
    assert f"one maximum budget of {EPOCHS} epochs for every approach" in text
    assert "early stopping on val_loss (patience 10" in text
    assert "digit_sum (3 seeds per row): test exact match 0.030" in text
    assert "Every configuration converged." in text


def test_method_states_how_far_a_run_still_improving_extends_its_budget():
    runs = synthetic_runs()
    for run in runs:
        run.config["trainer"] = {**run.config["trainer"], "max_epochs_factor": 4}
    groups = _groups(runs)
    p = protocol(runs, groups, {d: headline(d, c) for d, c in groups.items()})
    assert p.epoch_factors == (4,)
    assert (
        f"one maximum budget of {EPOCHS} epochs for every approach, which a run still improving "
        "at its end extends, by the same rule, to 4 times as many"
    ) in _text(method_blocks(p))


def test_identical_values_on_every_seed_are_called_tied_not_indistinguishable():
    runs = [_run("count", a, s, 0.5, 0.5) for a in ("classification", "regression") for s in (0, 1)]
    for r in runs:
        r.metrics["test"]["exact_match"] = 1.0
    w = winner(_groups(runs)["count"], TEST_EXACT_MATCH)
    assert verdict(w) == (
        "test exact match: tied: classification and regression give 1.000 on every seed."
    )
    iv = w.leader.metric("test", "exact_match")
    assert answers.compare(iv, iv, True) == "tied (1.000 on every seed of both)"


def _rates(val_by_rate):
    """count/regression at three rates, two seeds, with the given val exact match per rate."""
    runs = [_run("count", "regression", s, 0.5, 0.5, lr=lr) for s in (0, 1) for lr in val_by_rate]
    for r in runs:
        r.metrics["val"]["exact_match"] = val_by_rate[r.config["trainer"]["learning_rate"]]
    groups = _groups(runs)
    return protocol(runs, groups, {"count": headline("count", groups["count"])})


def test_method_lists_rows_whose_rate_at_an_edge_beats_the_rate_next_to_it():
    at_top = _rates({1e-3: 0.1, 3e-3: 0.5, 1e-2: 0.9})
    assert [c.learning_rate for c in at_top.at_grid_edge] == [1e-2]
    assert "count: regression (0.01)" in _text(method_blocks(at_top))
    assert "better on val than the rate next to it" in _text(method_blocks(at_top))
    assert _rates({1e-3: 0.1, 3e-3: 0.9, 1e-2: 0.5}).at_grid_edge == []  # best inside the grid
    tie = _rates({1e-3: 0.9, 3e-3: 0.9, 1e-2: 0.9})  # the lowest rate wins a tie: no signal
    assert tie.at_grid_edge == []
    assert (
        "No headline row chose a rate at an edge of the grid that beat the rate next to it."
        in _text(method_blocks(tie))
    )


def test_the_epochs_a_configuration_reports_are_the_cap_its_runs_trained_under():
    runs = [_run("count", "regression", s, 0.6, 0.5) for s in range(3)]
    for run in runs:
        run.config["trainer"] = {**run.config["trainer"], "max_epochs_factor": 4}
    assert _groups(runs)["count"][0].epochs == 4 * EPOCHS
    for run in runs:  # without early stopping nothing extends the budget
        run.config["trainer"]["early_stopping"] = {"enabled": False}
    assert _groups(runs)["count"][0].epochs == EPOCHS
