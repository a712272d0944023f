"""The numbers behind the short answers, from synthetic configurations."""

import pytest
from synthetic_results import _run, synthetic_runs

from roundlab.report import answers
from roundlab.report.cost import GRAPH, XLA, CostRow
from roundlab.report.headline import headline
from roundlab.report.recommendation import recommendations
from roundlab.report.selection import group
from roundlab.report.stats import Interval, mean_ci
from roundlab.report.tuning import tune_groups

REFERENCE = mean_ci([0.49, 0.5, 0.51])  # sd 0.01


@pytest.mark.parametrize(
    ("a", "higher", "verdict"),
    [
        (mean_ci([0.89, 0.9, 0.91]), True, "better"),
        (mean_ci([0.89, 0.9, 0.91]), False, "worse"),
        # sd 0.5 and 0.01, n = 3 each, df = 4: (2.776445 + 0.940965) · sqrt(0.25/3 + 0.0001/3)
        # = 3.717410 · 0.288733 = 1.073
        (
            mean_ci([0.4, 0.9, 1.4]),
            True,
            "indistinguishable (intervals overlap; the smallest difference these seeds could "
            "detect is 1.073)",
        ),
        (Interval(0.9, None, 1), True, "not comparable (one seed, no interval)"),
        (Interval(float("nan"), None, 0), True, "not comparable (missing)"),
    ],
)
def test_compare_calls_a_difference_only_when_intervals_are_apart(a, higher, verdict):
    assert answers.compare(a, REFERENCE, higher) == verdict


def test_in_range_compares_the_best_rounding_activation_with_each_other_approach():
    groups = tune_groups(group(synthetic_runs()))
    item = answers.in_range(headline("count", groups["count"]), groups["count"])
    assert item.rounding.activation == "sigmoid_round" and item.rounding.params == {
        "steepness": 20.0
    }
    assert item.against == [
        ("classification", "better", "better", None),
        ("regression", "better", "better", None),
    ]


def test_in_range_has_no_comparison_without_a_rounding_run():
    approaches = ("classification", "regression")
    runs = [_run("count", a, s, 0.5, 0.5) for a in approaches for s in range(3)]
    groups = group(runs)
    item = answers.in_range(headline("count", groups["count"]), groups["count"])
    assert item.rounding is None and item.against == []


def test_knobs_report_the_best_value_and_the_zero_gradient_ends_per_dataset():
    sweeps = answers.knobs(tune_groups(group(synthetic_runs())))
    by = {s.activation: s for s in sweeps}
    sigmoid = by["sigmoid_round"]
    assert sigmoid.param == "steepness" and sigmoid.values == [1.0, 5.0, 20.0]
    assert sigmoid.best == [("count", 20.0), ("digit_sum", 20.0)]
    assert [(d, lo, hi) for d, lo, hi in sigmoid.zero_grad] == [
        ("count", pytest.approx(0.0), pytest.approx(0.6)),
        ("digit_sum", pytest.approx(0.0), pytest.approx(0.6)),
    ]


def test_extrapolation_is_recommended_only_where_the_dataset_has_the_split():
    groups = tune_groups(group(synthetic_runs()))
    digit_sum = recommendations(headline("digit_sum", groups["digit_sum"]))
    assert [r.column.split for r in digit_sum] == ["test", "test"]
    (*_, extrapolation) = recommendations(headline("count", groups["count"]))
    assert extrapolation.column.split == "extrapolate"
    assert extrapolation.recommended.title == "rounding · sigmoid_round steepness=20"


def test_numpy_cost_is_the_ratio_to_each_mode_of_the_twin():
    rows = [
        CostRow("spiky", GRAPH, 2.0, ""),
        CostRow("spiky", XLA, 1.0, ""),
        CostRow("spiky_np", GRAPH, 20.0, ""),
        CostRow("spiky_np", XLA, None, "cannot compile"),
    ]
    (cost,) = answers.numpy_costs(rows)
    assert (cost.activation, cost.twin, cost.median_ms) == ("spiky_np", "spiky", 20.0)
    assert cost.twin_times == [(GRAPH, 2.0, 10.0), (XLA, 1.0, 20.0)]
