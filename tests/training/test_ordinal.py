"""The ordinal heads: CORN's and CORAL's losses and readouts against hand-computed values, CORN's
conditional training masks, CORAL's rank consistency, and a CORAL head that trains its biases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from roundlab import approaches
from roundlab.errors import ConfigError

LN3 = math.log(3.0)


def ordinal(compose, method: str, y_train) -> approaches.head.Approach:
    cfg = compose("approach=ordinal", f"approach.method={method}")
    return approaches.build(cfg, np.asarray(y_train))


def per_example(approach, y, logits) -> np.ndarray:
    y = np.asarray(y, dtype=np.float32)
    return np.asarray(approach.loss(y, np.asarray(logits, dtype=np.float32)))


def test_coral_loss_is_the_sum_of_the_cumulative_cross_entropies(compose):
    # Training labels 1..3: K = 3, two tasks "y > 1", "y > 2". Label 2 has levels [1, 0].
    # Logits [0, ln 3]: BCE(1, σ(0)) = ln 2; BCE(0, σ(ln 3) = 3/4) = −ln(1/4) = ln 4.
    # Sum: ln 2 + ln 4 = ln 8. Label 3 (levels [1, 1]) on the same logits: ln 2 + ln(4/3).
    coral = ordinal(compose, "coral", [1, 2, 3])
    got = per_example(coral, [2, 3], [[0.0, LN3], [0.0, LN3]])
    np.testing.assert_allclose(got, [math.log(8), math.log(2) + math.log(4 / 3)], rtol=1e-6)


def test_corn_loss_trains_task_k_only_on_labels_above_k_minus_one(compose):
    # Training labels 0..3: K = 4, three tasks. Logits [0, ln 3, −ln 3] for every example.
    # y = 0: only task 0 (label 0): BCE(0, 1/2) = ln 2.
    # y = 1: task 0 (label 1) ln 2, task 1 (label 0, σ = 3/4) ln 4, task 2 not trained: ln 8.
    # y = 3: every task, all labels 1: ln 2 + ln(4/3) + ln 4 (σ(−ln 3) = 1/4) = ln(32/3).
    corn = ordinal(compose, "corn", [0, 1, 2, 3])
    logits = [[0.0, LN3, -LN3]] * 3
    got = per_example(corn, [0, 1, 3], logits)
    np.testing.assert_allclose(got, [math.log(2), math.log(8), math.log(32 / 3)], rtol=1e-6)


def test_corn_gives_no_gradient_to_the_tasks_an_example_does_not_reach(compose):
    import tensorflow as tf

    corn = ordinal(compose, "corn", [0, 1, 2, 3])
    logits = tf.Variable(np.zeros((3, 3), dtype=np.float32))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(corn.loss(tf.constant([0.0, 1.0, 3.0]), logits))
    grad = tape.gradient(loss, logits).numpy()
    # Task j trains on y >= j: y = 0 reaches task 0, y = 1 tasks 0 and 1, y = 3 all three.
    np.testing.assert_array_equal(grad != 0, [[1, 0, 0], [1, 1, 0], [1, 1, 1]])
    # d BCE / d logit = σ(logit) − target = 1/2 − target.
    np.testing.assert_allclose(grad[2], [-0.5, -0.5, -0.5])
    np.testing.assert_allclose(grad[0], [0.5, 0, 0])


def test_corn_reads_out_the_product_of_its_conditional_probabilities(compose):
    # σ(ln 3) = 3/4 on every task: P(y > k) = 3/4, 9/16, 27/64 -> two exceed 1/2, so 5 + 2 = 7
    # (counting the conditionals above 1/2 would say 8). [ln 3, 0, −ln 3]: 3/4, 3/8 -> 5 + 1.
    corn = ordinal(compose, "corn", [5, 6, 7, 8])
    logits = np.array([[LN3] * 3, [LN3, 0.0, -LN3], [-LN3, 5.0, 5.0]], dtype=np.float32)
    np.testing.assert_array_equal(corn.decode(logits), [7, 6, 5])
    np.testing.assert_array_equal(np.asarray(corn.decode_tf(logits)), [7, 6, 5])


def test_coral_reads_out_the_count_of_probabilities_above_one_half(compose):
    coral = ordinal(compose, "coral", [5, 6, 7, 8])
    logits = np.array([[LN3, 0.0, -LN3], [LN3] * 3, [-1.0] * 3], dtype=np.float32)
    # σ = 3/4, 1/2 (not above), 1/4 -> 5 + 1; all 3/4 -> 5 + 3; all below -> 5.
    np.testing.assert_array_equal(coral.decode(logits), [6, 8, 5])


def test_coral_biases_start_non_increasing_so_every_prediction_is_rank_consistent(compose):
    # Labels 2, 2, 3, 6: P(r > 0) = 1/2, P(r > 1) = P(r > 2) = P(r > 3) = 1/4.
    coral = ordinal(compose, "coral", [2, 2, 3, 6])
    (offsets,) = coral.head
    np.testing.assert_allclose(offsets.initial, [0.0, -LN3, -LN3, -LN3], atol=1e-6)
    scores = np.linspace(-5, 5, 41, dtype=np.float32).reshape(-1, 1)
    probabilities = 1 / (1 + np.exp(-np.asarray(offsets(scores))))
    assert np.all(np.diff(probabilities, axis=1) <= 0)


def test_corn_biases_start_at_the_conditional_training_frequencies(compose):
    # Labels 2, 3, 6 (ranks 0, 1, 4): P(r > 0 | r >= 0) = 2/3, P(r > 1 | r >= 1) = 1/2,
    # and P(r > 2 | r >= 2) = P(r > 3 | r >= 3) = 1, clipped to 0.999 before the logit.
    corn = ordinal(compose, "corn", [2, 3, 6])
    np.testing.assert_allclose(
        corn.bias, [math.log(2), 0.0, math.log(999), math.log(999)], rtol=1e-6, atol=1e-9
    )


@pytest.mark.parametrize("method", ["corn", "coral"])
def test_labels_outside_the_training_range_are_never_predicted(compose, method):
    approach = ordinal(compose, method, [3, 4, 5, 6])
    extreme = np.array([[1e4] * 3, [-1e4] * 3], dtype=np.float32)
    np.testing.assert_array_equal(approach.decode(extreme), [6, 3])
    assert approaches.get("ordinal").in_range_only


@pytest.mark.parametrize("method", ["corn", "coral"])
def test_loss_and_gradients_are_finite_for_extreme_logits_and_labels(compose, method):
    import tensorflow as tf

    approach = ordinal(compose, method, [0, 1, 2, 3])
    logits = tf.Variable(np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 50.0]], dtype=np.float32))
    y = tf.constant([-7.0, 12.0])  # outside 0..3: clipped to the nearest rank for the loss
    with tf.GradientTape() as tape:
        # CORAL's head turns the shared score (first column) into its three logits.
        out = approach.head[0](logits[:, :1]) if approach.head else logits
        loss = approach.loss(y, out)
        total = tf.reduce_sum(loss)
    grad = tape.gradient(total, logits).numpy()
    assert np.all(np.isfinite(loss.numpy())) and np.all(np.isfinite(grad))
    assert np.any(grad != 0)


def test_a_single_training_label_is_refused(compose):
    from roundlab.errors import ConfigError

    with pytest.raises(ConfigError, match="at least two labels.*Received: training labels all 4"):
        ordinal(compose, "corn", [4, 4, 4])


def test_an_unknown_method_is_refused_naming_the_known_ones(compose):
    from roundlab.run import validate

    cfg = compose("approach=ordinal", "approach.method=clm")
    with pytest.raises(ConfigError, match=r"approach.method must be one of \('corn', 'coral'\)"):
        validate.validate(cfg)


def test_each_method_is_a_run_of_its_own(compose, tmp_path):
    from roundlab.runs import RunKey

    corn = RunKey.from_config(compose("approach=ordinal"))
    coral = RunKey.from_config(compose("approach=ordinal", "approach.method=coral"))
    assert (corn.variant, coral.variant) == ("corn", "coral")
    assert corn.result_path(tmp_path) != coral.result_path(tmp_path)
    assert "approach.method=coral" in coral.overrides()
    assert RunKey.of("count", "ordinal").method == "corn"


def test_coral_trains_end_to_end_as_a_variant_of_its_own_above_the_constant(compose):
    from roundlab.train import train

    result = train(compose("approach=ordinal", "approach.method=coral", "tracking.enabled=false"))
    assert result.ok, result.error
    assert result.key.variant == "coral"
    assert result.metrics["test"]["exact_match"] > result.baseline["test"]["exact_match"]
    assert set(result.metrics["extrapolate"]) >= {"exact_match", "mae"}
