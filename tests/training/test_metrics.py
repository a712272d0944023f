import numpy as np
import pytest

from roundlab import metrics


def test_readout_rounds_ties_to_even_like_tf_round():
    import tensorflow as tf

    x = np.array([-1.5, -0.5, 0.5, 1.5, 2.5, 2.49, 2.51, 3.0])
    assert metrics.round_half_even(x).tolist() == [-2, 0, 0, 2, 2, 2, 3, 3]
    assert metrics.round_half_even(x).tolist() == tf.round(x).numpy().astype(int).tolist()


def test_integer_metrics_on_a_known_case():
    got = metrics.integer_metrics(np.array([0, 1, 2, 3]), np.array([0, 2, 4, 3]))
    assert got == pytest.approx(
        {"exact_match": 0.5, "mae": 0.75, "rmse": np.sqrt(5 / 4), "within_one": 0.75}
    )


def test_integer_metrics_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match="same shape"):
        metrics.integer_metrics(np.zeros(3), np.zeros(4))


def test_baseline_is_the_rounded_training_median():
    assert metrics.baseline_constant(np.array([1, 2, 3, 10])) == 2  # median 2.5, tie to even
    got = metrics.baseline_metrics(np.array([1, 2, 2, 9]), np.array([2, 3]))
    assert got["exact_match"] == 0.5 and got["mae"] == 0.5
