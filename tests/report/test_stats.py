import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from roundlab.report import stats
from roundlab.report.stats import Interval, detectable_difference, mean_ci


@pytest.mark.parametrize("values", [[0.1, 0.2, 0.4], [1.0, 2.0, 3.0, 4.0, 10.0], [5.0, 5.5]])
def test_interval_equals_scipy_t_interval(values):
    iv = mean_ci(values)
    lo, hi = scipy_stats.t.interval(
        0.95, len(values) - 1, loc=np.mean(values), scale=scipy_stats.sem(values)
    )
    assert iv.n == len(values)
    assert iv.lo == pytest.approx(lo, rel=1e-12)
    assert iv.hi == pytest.approx(hi, rel=1e-12)


def test_three_seeds_use_t_quantile_not_normal():
    # sd = 1, n = 3: half-width t_{0.975,2} / sqrt(3) = 4.3027 / 1.7321 = 2.4841
    iv = mean_ci([-1.0, 0.0, 1.0])
    assert iv.half_width == pytest.approx(2.4841, abs=1e-4)


def test_single_value_has_no_interval_not_a_zero_one():
    iv = mean_ci([0.7])
    assert iv.mean == 0.7 and iv.n == 1
    assert iv.half_width is None and not iv.available
    assert iv.format() == "0.700 (n=1, no CI)"
    assert "±" not in iv.format()


def test_identical_values_give_a_zero_width_interval():
    iv = mean_ci([0.5, 0.5, 0.5])
    assert iv.half_width == 0.0 and iv.format() == "0.500 ± 0.000"


def test_non_finite_values_are_dropped_and_counted():
    iv = mean_ci([0.2, None, math.nan, 0.4, math.inf])
    assert (iv.n, iv.dropped) == (2, 3)
    assert iv.mean == pytest.approx(0.3)


def test_no_value_gives_nan_mean_and_n_zero():
    iv = mean_ci([])
    assert iv.n == 0 and math.isnan(iv.mean) and iv.format() == "n/a"


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5, -0.1])
def test_confidence_outside_open_unit_interval_is_refused(confidence):
    with pytest.raises(
        ValueError, match=f"confidence must be in \\(0, 1\\). Received: confidence={confidence}"
    ):
        mean_ci([1.0, 2.0], confidence=confidence)


def test_overlap_is_symmetric_and_touching_counts():
    a, b = Interval(1.0, 0.5, 3), Interval(2.0, 0.5, 3)
    assert a.overlaps(b) and b.overlaps(a)  # they touch at 1.5
    c = Interval(3.0, 0.4, 3)
    assert not a.overlaps(c) and not c.overlaps(a)


def test_unavailable_interval_overlaps_everything():
    assert Interval(0.0, None, 1).overlaps(Interval(100.0, 0.1, 3))


def test_interval_keeps_the_sample_standard_deviation():
    assert mean_ci([0.0, 2.0, 4.0]).sd == pytest.approx(2.0)
    assert mean_ci([0.7]).sd is None


def test_detectable_difference_matches_a_hand_computed_case():
    # s1 = 1 (n1 = 3), s2 = 2 (n2 = 3), df = 4:
    # t_{0.975,4} = 2.776445, t_{0.8,4} = 0.940965, sum 3.717410;
    # sqrt(1/3 + 4/3) = sqrt(5/3) = 1.290994; mdd = 3.717410 · 1.290994 = 4.799155
    a, b = mean_ci([-1.0, 0.0, 1.0]), mean_ci([0.0, 2.0, 4.0])
    assert detectable_difference(a, b) == pytest.approx(4.799155, abs=1e-6)
    assert detectable_difference(b, a) == pytest.approx(4.799155, abs=1e-6)


def test_detectable_difference_shrinks_with_more_seeds():
    few = detectable_difference(mean_ci([0.0, 1.0, 2.0]), mean_ci([0.0, 1.0, 2.0]))
    many = detectable_difference(mean_ci([0.0, 1.0, 2.0] * 4), mean_ci([0.0, 1.0, 2.0] * 4))
    assert many < few / 2


def test_detectable_difference_is_unavailable_with_one_seed():
    assert detectable_difference(mean_ci([0.5]), mean_ci([0.1, 0.2, 0.3])) is None


@pytest.mark.parametrize(("alpha", "power"), [(0.0, 0.8), (0.05, 1.0)])
def test_detectable_difference_refuses_levels_outside_the_unit_interval(alpha, power):
    with pytest.raises(ValueError, match="must be in \\(0, 1\\). Received: "):
        detectable_difference(mean_ci([1.0, 2.0]), mean_ci([1.0, 2.0]), alpha, power)


def test_an_exact_value_is_a_point_that_an_interval_contains_or_not():
    point = stats.exact(stats.mean_ci([0.62]))
    assert point.exact and point.half_width == 0 and point.format() == "0.620 (deterministic)"
    wide = stats.mean_ci([0.5, 0.6, 0.7])  # 0.6 ± 0.248
    assert wide.overlaps(point) and point.overlaps(wide)
    assert not stats.mean_ci([0.70, 0.71, 0.72]).overlaps(point)


def test_detectable_difference_against_an_exact_value_is_the_one_sample_one():
    # (t_{.975,2} + t_{.8,2}) · s / sqrt(n) = (4.302653 + 1.060660) · 0.1 / sqrt(3), by hand
    sample = stats.mean_ci([0.5, 0.6, 0.7])
    point = stats.exact(stats.mean_ci([0.3]))
    assert stats.detectable_difference(sample, point) == pytest.approx(0.309651, abs=1e-6)
    assert stats.detectable_difference(point, sample) == pytest.approx(0.309651, abs=1e-6)
    assert stats.detectable_difference(point, stats.exact(stats.mean_ci([0.4]))) == 0.0
    assert stats.detectable_difference(stats.mean_ci([0.5]), point) is None
