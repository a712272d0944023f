"""Early stopping follows keras.callbacks.EarlyStopping member by member and gives back the
best epoch's weights."""

from __future__ import annotations

import numpy as np
import pytest

from roundlab.engine import HISTORY_KEYS, EarlyStopping, Member, train_members
from roundlab.engine.early_stopping import Tracker

from .support import HIDDEN, initial_weights, setup


def keras_stopping(rule: EarlyStopping, values: np.ndarray) -> tuple[int, int]:
    """(epochs run, best epoch) of keras' EarlyStopping fed ``values`` as the monitored key."""
    import keras

    callback = keras.callbacks.EarlyStopping(
        monitor=rule.monitor,
        patience=rule.patience,
        min_delta=rule.min_delta,
        mode="max" if rule.maximise else "min",
        restore_best_weights=True,
    )
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
    model.stop_training = False  # what fit sets before the first epoch
    callback.set_model(model)
    callback.on_train_begin()
    for epoch, value in enumerate(values):
        callback.on_epoch_end(epoch, {rule.monitor: float(value)})
        if model.stop_training:
            break
    return epoch + 1, callback.best_epoch


@pytest.mark.parametrize("monitor", ["val_loss", "val_exact_match"])
@pytest.mark.parametrize("patience", [0, 1, 3])
@pytest.mark.parametrize("min_delta", [0.0, 0.1])
def test_tracker_stops_where_keras_early_stopping_does(monitor, patience, min_delta):
    rule = EarlyStopping(monitor=monitor, patience=patience, min_delta=min_delta)
    rng = np.random.default_rng(patience)
    epochs, members = 12, 40
    # values on a grid of 0.1 (ties and exactly-min_delta steps occur) drifting down or up
    drift = np.arange(epochs)[:, None] * (0.05 if rule.maximise else -0.05)
    monitored = np.round(rng.integers(0, 6, size=(epochs, members)) / 10 + drift, 1)
    tracker = Tracker(members, rule)
    for epoch in range(epochs):
        values = np.zeros((len(HISTORY_KEYS), members))
        values[HISTORY_KEYS.index(monitor)] = monitored[epoch]
        tracker.update(epoch, values)
        if tracker.done:
            break
    for m in range(members):
        expected = keras_stopping(rule, monitored[:, m])
        assert (tracker.epochs_run[m], tracker.best_epoch[m]) == expected


def test_auto_mode_maximises_accuracies_and_minimises_errors():
    assert EarlyStopping(monitor="val_exact_match").maximise
    assert EarlyStopping(monitor="val_within_one").maximise
    assert not EarlyStopping(monitor="val_mae").maximise
    assert not EarlyStopping(monitor="val_loss").maximise
    assert not EarlyStopping(monitor="val_exact_match", mode="min").maximise


def test_monitor_must_be_a_validation_key():
    with pytest.raises(ValueError, match=r"monitor must be one of .* Received: monitor='loss'"):
        EarlyStopping(monitor="loss")


def test_restored_weights_are_the_best_epochs_and_history_stops_there(data):
    cfg, approach = setup("soft_round", data[1])
    members = [
        Member(seed, initial_weights(cfg, approach, seed), knob)
        for seed, knob in enumerate((2.0, 6.0, 12.0))
    ]
    settings = {"hidden_sizes": HIDDEN, "batch_size": 32, "learning_rate": 0.01}
    rule = EarlyStopping(monitor="val_exact_match", patience=2)
    stopped = train_members(approach, members, *data, epochs=25, early_stopping=rule, **settings)
    assert any(o.epochs_run < 25 for o in stopped), "some member should stop early"
    assert any(o.best_epoch < o.epochs_run - 1 for o in stopped), "some should restore"
    for member, outcome in zip(members, stopped, strict=True):
        history = outcome.history["val_exact_match"]
        assert outcome.best_epoch == int(np.argmax(history))  # first of the best
        assert outcome.epochs_run == len(history)
        upto_best = train_members(
            approach, [member], *data, epochs=outcome.best_epoch + 1, **settings
        )
        for got, expected in zip(outcome.weights, upto_best[0].weights, strict=True):
            np.testing.assert_array_equal(got, expected)
        run = train_members(approach, [member], *data, epochs=outcome.epochs_run, **settings)
        assert outcome.history == run[0].history
