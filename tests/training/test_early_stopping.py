"""Early stopping: the rule Keras applies, the epochs a run records, the weights it keeps."""

import numpy as np
import pytest

from roundlab.engine.early_stopping import EarlyStopping, best_epoch, epoch_cap


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


def test_a_cap_that_ends_while_improving_is_flagged_not_converged(compose):
    from roundlab.train import train

    result = train(
        compose(
            "approach=regression",
            "trainer.epochs=2",
            "trainer.max_epochs_factor=1",
            "trainer.learning_rate=1e-4",
        )
    )
    assert result.epochs_run == 2 and result.best_epoch == 1 and result.converged is False


def test_the_cap_is_the_budget_times_the_factor_only_under_early_stopping():
    assert epoch_cap(300, 4, EarlyStopping()) == 1200
    assert epoch_cap(300, 1, EarlyStopping()) == 300
    # Nothing would stop a run before the cap without a rule: the budget is the cap.
    assert epoch_cap(300, 4, None) == 300
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match=f"max_epochs_factor={bad!r}"):
            epoch_cap(300, bad, EarlyStopping())


def test_a_run_still_improving_at_the_budget_keeps_training_up_to_the_cap(compose):
    from roundlab.train import train

    # A learning rate this small improves val_loss every epoch: the rule never fires.
    cap = "trainer.max_epochs_factor=4"
    still = train(
        compose("approach=regression", "trainer.epochs=3", "trainer.learning_rate=1e-4", cap)
    )
    assert still.epochs_run == len(still.history["loss"]) == 12 and still.best_epoch == 11
    assert still.converged is False
    # A run the rule stops within the budget is untouched by the cap.
    fast = (
        "approach=regression",
        "trainer.epochs=30",
        "trainer.learning_rate=0.2",
        "trainer.early_stopping.patience=2",
    )
    capped = train(compose(*fast, cap))
    uncapped = train(compose(*fast, "trainer.max_epochs_factor=1"))
    assert capped.epochs_run < 30 and capped.history == uncapped.history


def test_a_group_member_still_improving_continues_past_the_budget_as_alone(compose):
    from roundlab.run.job import resolve
    from roundlab.sweep import vectorized

    cfgs = [
        resolve(
            compose(
                "approach=regression",
                "trainer.epochs=3",
                "trainer.max_epochs_factor=4",
                f"trainer.learning_rate={lr}",
            )
        )
        for lr in (1e-4, 0.2)
    ]
    group = vectorized.train_group(cfgs)
    slow, fast = group.fits
    assert slow.epochs_run == 12 and slow.best_epoch == 11 and not slow.converged
    assert fast.epochs_run <= 12 and len(fast.history["loss"]) == fast.epochs_run
