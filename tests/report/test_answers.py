"""The numbers behind the short answers, from synthetic configurations."""

import pytest
from synthetic_results import _run, synthetic_runs

from roundlab.report import answers
from roundlab.report.cost import GRAPH, XLA, CostRow
from roundlab.report.headline import headline
from roundlab.report.selection import group
from roundlab.report.stats import Interval

REFERENCE = Interval(0.5, 0.01, 3)


@pytest.mark.parametrize(
    ("a", "higher", "verdict"),
    [
        (Interval(0.9, 0.01, 3), True, "better"),
        (Interval(0.9, 0.01, 3), False, "worse"),
        (Interval(0.9, 0.5, 3), True, "indistinguishable (intervals overlap)"),
        (Interval(0.9, None, 1), True, "not comparable (one seed, no interval)"),
        (Interval(float("nan"), None, 0), True, "not comparable (missing)"),
    ],
)
def test_compare_calls_a_difference_only_when_intervals_are_apart(a, higher, verdict):
    assert answers.compare(a, REFERENCE, higher) == verdict


def test_in_range_compares_the_best_rounding_activation_with_each_other_approach():
    groups = group(synthetic_runs())
    item = answers.in_range(headline("count", groups["count"]), groups["count"])
    assert item.rounding.activation == "sigmoid_round" and item.rounding.params == {
        "steepness": 20.0
    }
    assert item.against == [
        ("classification", "better", "better"),
        ("regression", "better", "better"),
    ]


def test_in_range_has_no_comparison_without_a_rounding_run():
    approaches = ("classification", "regression")
    runs = [_run("count", a, s, 0.5, 0.5) for a in approaches for s in range(3)]
    groups = group(runs)
    item = answers.in_range(headline("count", groups["count"]), groups["count"])
    assert item.rounding is None and item.against == []


def test_knobs_report_the_best_value_and_the_zero_gradient_ends_per_dataset():
    sweeps = answers.knobs(group(synthetic_runs()))
    by = {s.activation: s for s in sweeps}
    sigmoid = by["sigmoid_round"]
    assert sigmoid.param == "steepness" and sigmoid.values == [1.0, 5.0, 20.0]
    assert sigmoid.best == [("count", 20.0), ("digit_sum", 20.0)]
    assert [(d, lo, hi) for d, lo, hi in sigmoid.zero_grad] == [
        ("count", pytest.approx(0.0), pytest.approx(0.6)),
        ("digit_sum", pytest.approx(0.0), pytest.approx(0.6)),
    ]


def test_extrapolation_lists_only_rows_with_the_split():
    groups = group(synthetic_runs())
    assert answers.extrapolation(headline("digit_sum", groups["digit_sum"])) == []
    labels = [label for label, _ in answers.extrapolation(headline("count", groups["count"]))]
    assert labels[:2] == ["classification", "regression"]


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
