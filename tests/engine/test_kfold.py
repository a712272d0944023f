"""K-fold selection: the folds, the rule that picks it, the refit's epochs, and the stacked
engine's folds against Keras ``fit`` fold by fold.

The stacked-against-single comparison trains full batches (batch_size >= every fold's rows),
which takes shuffling out of it, as test_keras_parity does; compared to float32 tolerance.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from roundlab.engine import EarlyStopping, Member, evaluation, kfold, single, stacked_kfold
from roundlab.engine.outcome import Fitted

from .support import labelled, network, setup


def test_folds_partition_the_rows_stratified_by_label_when_every_label_has_k_rows():
    y = np.repeat([0, 1, 2, 3], [10, 15, 20, 7])
    folds = kfold.assign(y, 5)
    assert folds.stratified and folds.k == 5
    held = [folds.held_out(f) for f in range(5)]
    assert sorted(np.concatenate(held).tolist()) == list(range(len(y)))
    for f in range(5):
        assert np.intersect1d(folds.training(f), folds.held_out(f)).size == 0
        counts = np.bincount(y[held[f]], minlength=4)
        # every label split as evenly as it can be: 10 -> 2 a fold, 15 -> 3, 20 -> 4, 7 -> 1 or 2
        assert counts[:3].tolist() == [2, 3, 4] and counts[3] in (1, 2)


def test_folds_are_plain_shuffled_folds_when_a_label_has_fewer_than_k_rows():
    y = np.repeat([0, 1, 2], [30, 20, 4])
    folds = kfold.assign(y, 5)
    assert not folds.stratified
    sizes = sorted(len(folds.held_out(f)) for f in range(5))
    assert sizes == [10, 11, 11, 11, 11]
    # shuffled: not the contiguous blocks of an unshuffled KFold
    assert folds.fold[:11].tolist() != [0] * 11


def test_fold_assignment_depends_on_the_rows_only():
    y = np.repeat([0, 1, 2], [12, 9, 8])
    first, second = kfold.assign(y, 5), kfold.assign(y.copy(), 5)
    np.testing.assert_array_equal(first.fold, second.fold)
    # a fixed seed, not a run's: the same rows with other labels order their folds otherwise
    np.testing.assert_array_equal(kfold.assign(y, 5).fold, first.fold)
    assert first.fold.tolist() != kfold.assign(y[::-1].copy(), 5).fold[::-1].tolist()


@pytest.mark.parametrize("k", [1, 30, True])
def test_a_fold_count_outside_2_to_the_rows_is_refused(k):
    with pytest.raises(ValueError, match=f"cv_folds=.*{k}"):
        kfold.assign(np.arange(29) % 3, k)


@pytest.mark.parametrize(
    ("selection", "val_rows", "expected"),
    [
        ("auto", 17, "kfold"),
        ("auto", 199, "kfold"),
        ("auto", 200, "holdout"),
        ("auto", 3000, "holdout"),
        ("holdout", 17, "holdout"),
        ("kfold", 3000, "kfold"),
    ],
)
def test_auto_selects_kfold_below_200_validation_rows(selection, val_rows, expected):
    assert kfold.KFOLD_BELOW_VAL_ROWS == 200
    assert kfold.method(selection, val_rows) == expected


@pytest.mark.parametrize(
    ("best_epochs", "expected"),
    [
        ([3, 7, 2, 6, 6], 6),  # mean of 4, 8, 3, 7, 7 = 5.8
        ([0, 1], 2),  # mean 1.5: half rounds up
        ([0, 0, 1, 1, 1], 2),  # mean 1.6
        ([9, 9, 9, 9, 9], 10),
        ([0], 1),
    ],
)
def test_the_refit_trains_the_rounded_mean_of_the_folds_best_epoch_counts(best_epochs, expected):
    assert kfold.refit_epochs(best_epochs) == expected


def test_without_early_stopping_the_refit_trains_the_epochs_the_folds_kept():
    # folds that ran their budget of 20, val_loss lowest at epochs 4 and 9: their last
    # epoch's weights are the ones scored, so the refit trains the budget too
    fits = [Fitted({}, best, 20, 20) for best in (4, 9)]
    folds = kfold.assign(np.arange(10) % 2, 2)
    assert kfold.CrossValidation(folds, [], [], fits, early_stopping=False).refit_epochs == 20
    assert kfold.CrossValidation(folds, [], [], fits).refit_epochs == 8  # mean of 5 and 10: 7.5


def test_a_refit_member_stops_at_its_own_epoch_count():
    tracker = kfold.FixedEpochs([1, 3, 2])
    values = np.zeros((8, 3))
    kept = [tracker.update(epoch, values).tolist() for epoch in range(3)]
    assert kept == [[True, True, True], [False, True, True], [False, True, False]]
    assert tracker.done and tracker.epochs_run.tolist() == [1, 3, 2]
    assert tracker.best_epoch.tolist() == [0, 2, 1]


EPOCHS = 25
RATE = 0.1


@pytest.mark.parametrize("name", ["regression", "soft_round"])
def test_stacked_folds_select_what_keras_fit_folds_select(name):
    x_dev, y_float = labelled(110, 3)
    y_dev = y_float.astype(np.int64)
    folds = kfold.assign(y_dev, 5)
    cfg, approach = setup(name, y_float)
    stopping = EarlyStopping(patience=1)
    trainer = SimpleNamespace(
        optimizer="adam", learning_rate=RATE, batch_size=128, epochs=EPOCHS, verbose=0
    )
    net = network(cfg, approach, 7)
    member = Member(7, net.model.get_weights())
    alone, alone_refit = single.cross_validate(
        net, approach, x_dev, y_dev, folds, trainer, stopping, jit=False
    )

    shared = network(cfg, approach, 7)

    def predictor(m, weights):
        shared.model.set_weights(weights)
        return evaluation.readouts(evaluation.inference(shared), approach)

    [(cv, refit)] = stacked_kfold.cross_validate(
        approach,
        [member],
        x_dev,
        y_dev,
        folds,
        predictor,
        epochs=EPOCHS,
        batch_size=128,
        early_stopping=stopping,
        hidden_sizes=[8, 8],
        learning_rate=RATE,
    )
    assert cv.best_epochs == alone.best_epochs and cv.refit_epochs == alone.refit_epochs
    assert len(set(cv.best_epochs)) > 1 or min(cv.best_epochs) < EPOCHS - 1  # stopping acted
    for got, want in zip(cv.scores + cv.baselines, alone.scores + alone.baselines, strict=True):
        assert got.keys() == want.keys()
        np.testing.assert_allclose(list(got.values()), list(want.values()), atol=1e-9)
    assert refit.epochs_run == alone_refit.epochs_run == cv.refit_epochs
    assert sorted(refit.history) == sorted(alone_refit.history)
    np.testing.assert_allclose(refit.history["loss"], alone_refit.history["loss"], rtol=1e-4)
    for got, want in zip(refit.weights, net.model.get_weights(), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-5)


def test_each_stacked_fold_trains_as_a_member_alone_on_its_own_rows():
    # 101 rows: fold training parts of 80 and 81 rows, 5 and 6 batches of 16 (two programs);
    # shuffled, with partial last batches: every fold's rows, order and padding are its own.
    x_dev, y_float = labelled(101, 4)
    y_dev = y_float.astype(np.int64)
    folds = kfold.assign(y_dev, 5)
    assert sorted({len(folds.training(f)) for f in range(5)}) == [80, 81]
    cfg, approach = setup("soft_round", y_float)
    members = [
        Member(s, network(cfg, approach, s).model.get_weights(), knob=k)
        for s, k in [(1, 2.0), (2, 6.0)]
    ]
    train = {"hidden_sizes": [8, 8], "learning_rate": 0.02, "batch_size": 16, "epochs": 4}
    stopping = EarlyStopping(patience=1)
    stacked_folds = stacked_kfold.train_folds(
        approach, members, x_dev, y_dev, folds, early_stopping=stopping, **train
    )
    from roundlab.engine import train_members

    for member, outcomes in zip(members, stacked_folds, strict=True):
        for f, outcome in enumerate(outcomes):
            tr, held = folds.training(f), folds.held_out(f)
            [alone] = train_members(
                approach,
                [member],
                x_dev[tr],
                y_float[tr],
                x_dev[held],
                y_float[held],
                early_stopping=stopping,
                **train,
            )
            assert outcome.best_epoch == alone.best_epoch
            for key, values in alone.history.items():
                np.testing.assert_allclose(outcome.history[key], values, rtol=1e-5, atol=1e-6)
            for got, want in zip(outcome.weights, alone.weights, strict=True):
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
