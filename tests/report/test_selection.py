from synthetic_results import _run

from roundlab.report.selection import (
    HEADLINE_COLUMNS,
    Column,
    best_overall,
    best_per_family,
    group,
    swept_families,
    swept_values,
)
from roundlab.report.winner import winner
from roundlab.results import FAILED


def _sweep(em_val_test: dict[float, tuple[float, float]], seeds=(0, 1, 2)):
    runs = []
    for k, (val, test) in em_val_test.items():
        for s in seeds:
            r = _run("count", "rounding", s, test, 0.3, "sigmoid_round", {"steepness": k})
            r.metrics["val"]["exact_match"] = val + 0.01 * s
            runs.append(r)
    return runs


def test_best_setting_is_chosen_on_val_not_on_test():
    # steepness 5 wins on val, steepness 50 would win on test: val decides
    configs = group(_sweep({5.0: (0.9, 0.6), 50.0: (0.5, 0.95)}))["count"]
    (best,) = best_per_family(configs)
    assert best.params == {"steepness": 5.0}


def test_val_ties_go_to_the_lower_val_mae():
    runs = _sweep({5.0: (0.8, 0.8), 50.0: (0.8, 0.8)})
    for r in runs:
        r.metrics["val"]["mae"] = 0.1 if r.activation_params["steepness"] == 50.0 else 0.4
    (best,) = best_per_family(group(runs)["count"])
    assert best.params == {"steepness": 50.0}


def test_family_whose_runs_all_failed_has_no_headline_row():
    runs = [_run("count", "regression", s, 0.5, 0.5) for s in range(3)]
    runs += [
        _run("count", "rounding", s, 0, 0, "hard_round", status=FAILED, error="no gradient")
        for s in range(3)
    ]
    rows = best_per_family(group(runs)["count"])
    assert [r.family for r in rows] == ["regression"]


TEST_EXACT_MATCH = HEADLINE_COLUMNS[0]


def _rows(ems: dict[str, list[float]]):
    runs = []
    for approach, values in ems.items():
        for seed, v in enumerate(values):
            r = _run("count", approach, seed, v, 0.5)
            r.metrics["test"]["exact_match"] = v
            runs.append(r)
    return group(runs)["count"]


def test_winner_is_clear_when_intervals_are_apart():
    w = winner(
        _rows({"classification": [0.90, 0.91, 0.92], "regression": [0.5, 0.51, 0.52]}),
        TEST_EXACT_MATCH,
    )
    assert w.clear and w.leader.approach == "classification"


def test_difference_inside_the_intervals_is_not_a_win():
    w = winner(
        _rows({"classification": [0.6, 0.9, 0.75], "regression": [0.7, 0.72, 0.71]}),
        TEST_EXACT_MATCH,
    )
    assert w.leader.approach == "classification" and not w.clear


def test_single_seed_leader_is_never_a_clear_winner():
    w = winner(
        _rows({"classification": [0.99], "regression": [0.5, 0.51, 0.52]}),
        TEST_EXACT_MATCH,
    )
    assert w.leader.approach == "classification" and not w.clear


def test_lower_is_better_columns_pick_the_smallest_mean():
    rows = _rows({"classification": [0.5, 0.5, 0.5], "regression": [0.1, 0.1, 0.1]})
    w = winner(rows, Column("test", "exact_match", False, "exact_match"))
    assert w.leader.approach == "regression" and w.clear


def test_controls_never_stand_for_the_rounding_approach():
    runs = []
    for s in range(3):
        runs.append(_run("count", "rounding", s, 0.9, 0.1, "identity"))  # best on val
        runs.append(_run("count", "rounding", s, 0.5, 0.5, "soft_round", {"alpha": 2.0}))
    configs = group(runs)["count"]
    assert best_overall(configs, "rounding").activation == "soft_round"
    identity = next(c for c in best_per_family(configs) if c.activation == "identity")
    assert identity.label == "rounding · identity (control)"  # still in the table, marked


def test_swept_families_keep_finished_rounding_runs_by_ascending_value():
    runs = _sweep({20.0: (0.5, 0.5), 1.0: (0.6, 0.6), 5.0: (0.7, 0.7)})
    runs += [_run("count", "regression", s, 0.5, 0.5) for s in range(3)]
    runs += [_run("count", "rounding", s, 0.5, 0.5, "ste_round") for s in range(3)]
    runs += [
        _run("count", "rounding", s, 0, 0, "soft_round", {"alpha": 2.0}, status=FAILED)
        for s in range(3)
    ]
    configs = group(runs)["count"]
    families = swept_families(configs)
    assert list(families) == ["sigmoid_round"]
    assert [c.param for c in families["sigmoid_round"]] == [
        ("steepness", 1.0),
        ("steepness", 5.0),
        ("steepness", 20.0),
    ]
    assert list(swept_families(configs, finished=False)) == ["sigmoid_round", "soft_round"]


def test_swept_values_join_the_values_of_every_dataset():
    runs = _sweep({1.0: (0.5, 0.5), 5.0: (0.5, 0.5)})
    other = _run("digit_sum", "rounding", 0, 0.5, 0.5, "sigmoid_round", {"steepness": 2.0})
    assert swept_values(group([*runs, other])) == {"sigmoid_round": [1.0, 2.0, 5.0]}


def test_column_titles_name_split_and_metric():
    assert [c.title for c in HEADLINE_COLUMNS] == [
        "test exact match",
        "test MAE",
        "extrapolation exact match",
    ]
