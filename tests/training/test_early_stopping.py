"""Early stopping: the rule Keras applies, the epochs a run records, the weights it keeps."""

import numpy as np
import pytest

from roundlab.engine.early_stopping import EarlyStopping, best_epoch


def _history(monitored: list[float], monitor: str) -> dict[str, list[float]]:
    """A Keras history whose ``monitor`` takes the given values (the rest constant)."""
    from roundlab.engine import HISTORY_KEYS

    return {
        key: list(monitored) if key == monitor else [1.0] * len(monitored) for key in HISTORY_KEYS
    }


@pytest.mark.parametrize(
    ("values", "rule", "expected"),
    [
        ([5, 4, 3, 3.5, 3.6, 2.9], EarlyStopping(patience=2), (2, 5)),
        ([5, 4, 3, 3.5, 3.6, 2.9], EarlyStopping(patience=3), (5, 6)),
        ([5, 4.95, 4.9], EarlyStopping(patience=1, min_delta=0.1), (0, 2)),
        ([0.2, 0.5, 0.4, 0.5], EarlyStopping("val_exact_match", patience=2), (1, 4)),
        ([3, 2, 4, 5], None, (1, 4)),
    ],
)
def test_best_epoch_reads_the_rule_back_from_a_recorded_history(values, rule, expected):
    monitor = rule.monitor if rule else "val_loss"
    assert best_epoch(_history(values, monitor), rule) == expected


def test_a_run_records_its_best_epoch_and_keeps_its_weights(compose):
    from roundlab.train import train

    result = train(
        compose(
            "approach=regression",
            "trainer.epochs=30",
            "trainer.learning_rate=0.2",
            "trainer.early_stopping.patience=2",
        )
    )
    assert result.ok, result.error
    history = result.history["val_loss"]
    assert result.epochs_run == len(history) < 30
    assert result.best_epoch == int(np.argmin(history)) == result.epochs_run - 3
    assert result.converged is True
    assert result.history["val_exact_match"][result.best_epoch] == pytest.approx(
        result.metrics["val"]["exact_match"]
    )


def test_a_budget_that_ends_while_improving_is_flagged_not_converged(compose):
    from roundlab.train import train

    result = train(compose("approach=regression", "trainer.epochs=2", "trainer.learning_rate=1e-4"))
    assert result.epochs_run == 2 and result.best_epoch == 1 and result.converged is False
