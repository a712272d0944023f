"""Compaction: members that stopped leave the stacked program, and nobody's outcome changes.

Compared bitwise on the CPU under op determinism, as tests/engine/test_group_independence.py.
Member-steps are counted from what each epoch program is given: steps x the members in it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from roundlab.engine import (
    EarlyStopping,
    Member,
    compaction,
    epoch_program,
    stacked_kfold,
    train_members,
)

from .support import HIDDEN, initial_weights, setup
from .test_group_independence import assert_same_outcome

SETTINGS = {"hidden_sizes": HIDDEN, "batch_size": 32}


@pytest.fixture
def member_steps(monkeypatch):
    """The member-steps the epoch programs of a test computed, as a list of one count."""
    counted = [0]
    call = epoch_program.EpochProgram.__call__

    def counting(program, orders, keep):
        counted[0] += orders.shape[0] * orders.shape[1]
        return call(program, orders, keep)

    monkeypatch.setattr(epoch_program.EpochProgram, "__call__", counting)
    return counted


def soft_round_members(data, count: int) -> tuple[object, list[Member]]:
    cfg, approach = setup("soft_round", data[1])
    knobs = np.linspace(0.5, 12.0, count)
    return approach, [
        Member(seed, initial_weights(cfg, approach, seed), float(knob))
        for seed, knob in zip(range(100, 100 + count), knobs, strict=True)
    ]


def test_refits_stopping_at_mixed_epochs_give_the_same_outcomes_in_fewer_member_steps(
    data, member_steps
):
    """24 refits of 1..24 epochs: epoch e (0-based) runs the 24 - e still training, 300
    member-epochs instead of 24 x 24 = 576, of 3 steps each (90 rows, batch 32)."""
    approach, members = soft_round_members(data, 24)
    epochs = list(range(1, 25))
    runs = {}
    for compact in (False, True):
        member_steps[0] = 0
        runs[compact] = stacked_kfold.train_refits(
            approach, members, data[0], data[1], epochs, compact=compact, **SETTINGS
        )
        runs[compact, "steps"] = member_steps[0]
    assert (runs[False, "steps"], runs[True, "steps"]) == (576 * 3, 300 * 3)
    for got, expected, count in zip(runs[True], runs[False], epochs, strict=True):
        assert got.epochs_run == count
        assert_same_outcome(got, expected)


def test_early_stopped_and_failed_members_leave_without_changing_anyone(data, member_steps):
    """Members at learning rates from 1e-4 to 1 stop early between epoch 2 and 40 or fail;
    each leaves the program after its last epoch."""
    approach, members = soft_round_members(data, 24)
    rates = np.geomspace(1e-4, 1.0, len(members))
    members = [replace(m, learning_rate=float(r)) for m, r in zip(members, rates, strict=True)]
    settings = {**SETTINGS, "epochs": 40, "early_stopping": EarlyStopping(patience=2)}
    runs, steps = {}, {}
    for compact in (False, True):
        member_steps[0] = 0
        runs[compact] = train_members(approach, members, *data, compact=compact, **settings)
        steps[compact] = member_steps[0]
    stopped = sorted(o.epochs_run for o in runs[False])
    assert stopped[0] * 4 <= stopped[-1], f"stopping epochs should spread: {stopped}"
    for got, expected in zip(runs[True], runs[False], strict=True):
        assert_same_outcome(got, expected)
    # uncompacted: every member for the longest member's epochs; compacted: its own epochs
    assert steps[False] == 3 * len(members) * stopped[-1]
    assert steps[True] == 3 * sum(stopped)


def test_kfold_selection_with_compaction_selects_and_refits_as_without(data):
    from roundlab.engine import kfold

    approach, members = soft_round_members(data, 6)
    x_dev, y_dev = data[0], data[1]
    folds = kfold.assign(y_dev.astype(np.int64), 3)

    def run(compact):
        return stacked_kfold.train_folds(
            approach,
            members,
            x_dev,
            y_dev,
            folds,
            epochs=30,
            early_stopping=EarlyStopping(patience=1),
            compact=compact,
            **SETTINGS,
        )

    for got, expected in zip(run(True), run(False), strict=True):
        for a, b in zip(got, expected, strict=True):
            assert_same_outcome(a, b)


@pytest.mark.parametrize(
    ("live", "stack", "jit", "expected"),
    [
        (23, 24, False, True),
        (1, 2, False, True),
        (24, 24, False, False),
        (0, 24, False, False),
        (13, 24, True, False),
        (12, 24, True, True),
        (1, 2, True, True),
    ],
)
def test_a_stack_loses_its_stopped_members_at_once_and_under_xla_when_half_are_left(
    live, stack, jit, expected
):
    assert compaction.worth_compacting(live, stack, jit) is expected
