"""The poisson head: its loss, its two readouts and its overflow guard against hand-computed
values, and the mode recorded beside the rounded mean."""

from __future__ import annotations

import math

import numpy as np
import pytest

from roundlab import approaches
from roundlab.approaches import poisson


def head(compose, y_train=(0, 1, 2, 5)):
    return approaches.build(compose("approach=poisson"), np.asarray(y_train))


def test_loss_is_the_poisson_negative_log_likelihood_without_log_factorial(compose):
    # ℓ = ln 2, y = 3: λ − y ℓ = 2 − 3 ln 2 = −0.0794 (log 3! dropped); ℓ = 0, y = 0: 1.
    # ℓ = ln 5, y = 5: 5 − 5 ln 5.
    approach = head(compose)
    out = np.log(np.array([[2.0], [1.0], [5.0]], dtype=np.float32))
    got = np.asarray(approach.loss(np.array([3.0, 0.0, 5.0], dtype=np.float32), out))
    np.testing.assert_allclose(got, [2 - 3 * math.log(2), 1.0, 5 - 5 * math.log(5)], rtol=1e-6)


def test_readout_rounds_the_rate_half_up_and_the_mode_floors_it(compose):
    approach = head(compose)
    rates = np.array([2.5, 0.4, 3.7, 0.5, 11.49], dtype=np.float32)
    out = np.log(rates).reshape(-1, 1)
    # floor(λ + 0.5): 2.5 -> 3 (half to even would give 2), 0.4 -> 0, 3.7 -> 4, 0.5 -> 1.
    np.testing.assert_array_equal(approach.decode(out), [3, 0, 4, 1, 11])
    np.testing.assert_array_equal(np.asarray(approach.decode_tf(out)), [3, 0, 4, 1, 11])
    np.testing.assert_array_equal(approach.readouts["mode"](out), [2, 0, 3, 0, 11])


def test_bias_starts_at_the_log_of_the_training_mean(compose):
    assert head(compose, (0, 1, 2, 5)).bias == pytest.approx(math.log(2.0))


def test_a_huge_log_rate_gives_a_finite_loss_gradient_and_readout(compose):
    import tensorflow as tf

    approach = head(compose)
    out = tf.Variable([[1e4], [-1e4], [poisson.MAX_LOG_RATE - 1]])
    with tf.GradientTape() as tape:
        loss = approach.loss(tf.constant([3.0, 3.0, 3.0]), out)
        total = tf.reduce_sum(loss)
    grad = tape.gradient(total, out).numpy()
    assert np.all(np.isfinite(loss.numpy())) and np.all(np.isfinite(grad))
    # Below the cap the gradient is λ − y: exp(39) − 3 pulls the log-rate down.
    assert grad[2, 0] > 0 and grad[1, 0] == pytest.approx(-3.0)
    readout = approach.decode(out.numpy())
    # Saturated at the capped rate (in float32), not wrapped around int64.
    assert readout[0] == pytest.approx(math.exp(poisson.MAX_LOG_RATE), rel=1e-6)
    assert readout[1] == 0


def test_negative_training_labels_are_refused(compose):
    from roundlab.errors import ConfigError

    with pytest.raises(ConfigError, match="non-negative count labels.*Received: lowest .*=-2"):
        head(compose, (-2, 0, 3))


def test_the_result_records_the_mode_beside_the_rounded_mean(compose):
    from roundlab.train import train

    result = train(compose("approach=poisson", "tracking.enabled=false"))
    assert result.ok, result.error
    for split in ("val", "test", "extrapolate"):
        assert {"exact_match", "mae", "mode_exact_match", "mode_mae"} <= set(result.metrics[split])
