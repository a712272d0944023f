"""A member's outcome does not depend on who else is in its group, even a member that fails.

Compared bitwise on the CPU under op determinism: the stacked matmuls, reductions and optimizer
steps compute member m's numbers from member m's alone, in the same order for any group size,
and every elementwise op takes the same SIMD path for it in any row (every tensor holds a
multiple of 16 values per member: roundlab.engine.stacked_mlp).
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from roundlab.engine import HISTORY_KEYS, Member, train_members

from .support import APPROACHES, HIDDEN, initial_weights, labelled, setup

SETTINGS = {"hidden_sizes": HIDDEN, "batch_size": 32, "epochs": 4, "learning_rate": 0.01}


def group(name: str, y_train: np.ndarray) -> tuple[object, list[Member]]:
    cfg, approach = setup(name, y_train)
    knobs = (0.5, 4.0, 9.0) if name == "soft_round" else (None,) * 3
    seeds = (11, 12, 13)
    return approach, [
        Member(seed, initial_weights(cfg, approach, seed), knob)
        for seed, knob in zip(seeds, knobs, strict=True)
    ]


def assert_same_outcome(got, expected) -> None:
    assert got.error == expected.error
    assert (got.best_epoch, got.epochs_run) == (expected.best_epoch, expected.epochs_run)
    assert got.history == expected.history
    for a, b in zip(got.weights, expected.weights, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(APPROACHES))
def test_member_in_a_group_equals_member_alone(name, data):
    approach, members = group(name, data[1])
    together = train_members(approach, members, *data, **SETTINGS)
    for member, outcome in zip(members, together, strict=True):
        alone = train_members(approach, [member], *data, **SETTINGS)[0]
        assert_same_outcome(outcome, alone)
    assert list(together[0].history) == list(HISTORY_KEYS)
    assert all(len(values) == SETTINGS["epochs"] for values in together[0].history.values())


@pytest.mark.parametrize("name", ["soft_round", "classification", "poisson"])
def test_member_in_a_group_of_any_size_or_slot_equals_member_alone(name, data):
    """Groups of 8 or more fill whole SIMD packets of TensorFlow's CPU kernels (the mean's
    reciprocal, exp, log, ...), whose results differ in the last bit from the one-at-a-time
    path the last elements of a tensor take; a member's outcome must not depend on which.
    45 validation rows: the validation pass's tensors then end in a partial packet."""
    data = (*data[:2], *labelled(45, 2))
    cfg, approach = setup(name, data[1])
    members = [Member(seed, initial_weights(cfg, approach, seed)) for seed in range(20, 41)]
    together = train_members(approach, members, *data, **SETTINGS)
    for m in (0, 7, 8, 15, 16, 20):
        alone = train_members(approach, [members[m]], *data, **SETTINGS)[0]
        assert_same_outcome(together[m], alone)


@pytest.mark.parametrize("optimizer", ["adam", "sgd", "rmsprop"])
def test_member_with_its_own_learning_rate_trains_as_alone_at_that_rate(data, optimizer):
    """Each member takes its optimizer's step at its own rate, op for op, so a group of mixed
    rates gives each member what training it alone at its rate gives, to the bit."""
    approach, members = group("soft_round", data[1])
    rates = (0.003, 0.01, 0.03)
    own = [replace(m, learning_rate=r) for m, r in zip(members, rates, strict=True)]
    settings = {**SETTINGS, "optimizer": optimizer}
    mixed = train_members(approach, own, *data, **settings)
    for member, rate, outcome in zip(members, rates, mixed, strict=True):
        alone = train_members(approach, [member], *data, **{**settings, "learning_rate": rate})[0]
        assert_same_outcome(outcome, alone)


@pytest.mark.parametrize("name", ["classification", "ordinal_coral", "ordinal_corn", "soft_round"])
def test_batches_and_units_off_the_simd_width_leave_a_member_independent_of_its_group(name, data):
    """Batch size 20 and 9 classes (8 ordinal tasks): the batches are padded to 32 examples
    and the bias gradients summed over 16 units, so no member's numbers take the one-at-a-time
    path of the last elements of a tensor in one group size and the SIMD path in another."""
    data = (*data[:2], *labelled(45, 2))
    cfg, approach = setup(name, data[1])
    knobs = np.linspace(0.5, 9.0, 7) if name == "soft_round" else [None] * 7
    members = [
        Member(seed, initial_weights(cfg, approach, seed), None if k is None else float(k))
        for seed, k in zip(range(50, 57), knobs, strict=True)
    ]
    settings = {**SETTINGS, "batch_size": 20}
    together = train_members(approach, members, *data, **settings)
    for m in (0, 3, 6):
        alone = train_members(approach, [members[m]], *data, **settings)[0]
        assert_same_outcome(together[m], alone)


def test_a_diverging_member_names_its_own_learning_rate(data):
    cfg, approach = setup("regression", data[1])
    weights = initial_weights(cfg, approach, 5)
    members = [Member(5, weights, learning_rate=0.001), Member(6, weights, learning_rate=0.3)]
    settings = {**SETTINGS, "optimizer": "sgd", "epochs": 10, "hidden_activation": "linear"}
    calm, wild = train_members(approach, members, *data, **settings)
    assert calm.error is None
    assert wild.error is not None and "trainer.learning_rate=0.3" in wild.error


def test_without_early_stopping_best_epoch_is_that_of_the_lowest_val_loss(data):
    approach, members = group("soft_round", data[1])
    for outcome in train_members(approach, members, *data, **SETTINGS):
        assert outcome.epochs_run == SETTINGS["epochs"]
        assert outcome.best_epoch == int(np.argmin(outcome.history["val_loss"]))


def test_poisoned_member_fails_alone_and_the_others_are_unchanged(data):
    approach, members = group("soft_round", data[1])
    poisoned = Member(99, [w * 1e30 for w in members[0].initial_weights], knob=4.0)
    mixed = [members[0], poisoned, members[1], members[2]]
    outcomes = train_members(approach, mixed, *data, **SETTINGS)
    assert outcomes[1].error is not None
    assert re.match(r"loss became (nan|inf) at epoch 0 ", outcomes[1].error)
    assert outcomes[1].epochs_run == 1
    # no finite epoch: the weights it gives back are its initial ones
    for got, initial in zip(outcomes[1].weights, poisoned.initial_weights, strict=True):
        np.testing.assert_array_equal(got, initial)
    healthy = train_members(approach, members, *data, **SETTINGS)
    for got, expected in zip([outcomes[0], *outcomes[2:]], healthy, strict=True):
        assert_same_outcome(got, expected)


def test_member_failing_midway_keeps_its_last_finite_weights(data):
    cfg, approach = setup("regression", data[1])
    member = Member(5, initial_weights(cfg, approach, 5))
    # plain SGD through a linear network with a step this large diverges geometrically
    settings = {**SETTINGS, "optimizer": "sgd", "learning_rate": 0.3, "epochs": 10}
    settings["hidden_activation"] = "linear"
    outcome = train_members(approach, [member], *data, **settings)[0]
    assert outcome.error is not None, "the loss should overflow"
    failed = outcome.epochs_run - 1
    assert failed > 0, "the failure should come after a finite epoch"
    assert np.isfinite(outcome.history["loss"][:failed]).all()
    before = train_members(approach, [member], *data, **{**settings, "epochs": failed})[0]
    for got, expected in zip(outcome.weights, before.weights, strict=True):
        np.testing.assert_array_equal(got, expected)


def test_xla_compiled_program_trains_as_the_plain_one(data):
    """To float32 tolerance: XLA fuses and reorders the arithmetic."""
    approach, members = group("soft_round", data[1])
    plain = train_members(approach, members, *data, **SETTINGS)
    compiled = train_members(approach, members, *data, jit_compile=True, **SETTINGS)
    for got, expected in zip(compiled, plain, strict=True):
        for key in ("loss", "val_loss"):
            np.testing.assert_allclose(got.history[key], expected.history[key], rtol=1e-4)
        for a, b in zip(got.weights, expected.weights, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)
