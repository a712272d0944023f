"""A traced epoch program started over with other members (train_members' program_key) gives
each of them what a program traced for them gives, to the bit, and is not traced again; a key,
data or setting that differs gets a program of its own."""

from __future__ import annotations

from dataclasses import replace

import pytest

from roundlab.engine import Member, stacked, train_members
from roundlab.engine.early_stopping import EarlyStopping

from .support import HIDDEN, initial_weights, labelled, setup
from .test_group_independence import assert_same_outcome

SETTINGS = {
    "hidden_sizes": HIDDEN,
    "batch_size": 32,
    "epochs": 6,
    "early_stopping": EarlyStopping(patience=1),
}


def _members(name, y, seeds, rates, knobs):
    cfg, approach = setup(name, y)
    return approach, [
        Member(s, initial_weights(cfg, approach, s), k, r)
        for s, r, k in zip(seeds, rates, knobs, strict=True)
    ]


def _traces():
    return {key: p._run.experimental_get_tracing_count() for key, p in stacked._PROGRAMS.items()}


@pytest.mark.parametrize("name", ["soft_round", "classification", "ordinal_coral", "poisson"])
def test_a_program_started_over_gives_the_new_members_what_a_new_program_gives(name, data):
    knobs = (1.0, 5.0, 9.0) if name == "soft_round" else (None,) * 3
    approach, first = _members(name, data[1], (1, 2, 3), (0.01, 0.03, 0.003), knobs)
    key = ("test", name)
    train_members(approach, first, *data, **SETTINGS, program_key=key)
    traced = _traces()
    # fewer members, other seeds, rates and knobs (a family's later round)
    _, later = _members(name, data[1], (7, 8), (0.3, 0.001), knobs[:2][::-1])
    reused = train_members(approach, later, *data, **SETTINGS, program_key=key)
    assert _traces() == traced  # not traced again
    fresh = train_members(approach, later, *data, **SETTINGS)
    for got, expected in zip(reused, fresh, strict=True):
        assert_same_outcome(got, expected)
    # and more members than the program first had
    _, more = _members(name, data[1], (4, 5, 6, 9), (0.01,) * 4, (knobs * 2)[:4])
    again = train_members(approach, more, *data, **SETTINGS, program_key=key)
    for got, expected in zip(again, train_members(approach, more, *data, **SETTINGS), strict=True):
        assert_same_outcome(got, expected)


def test_other_data_or_settings_get_a_program_of_their_own(data):
    approach, members = _members("regression", data[1], (1, 2), (0.01, 0.01), (None, None))
    key = ("test", "own")
    train_members(approach, members, *data, **SETTINGS, program_key=key)
    other_data = (*labelled(90, 5), *data[2:])
    for data_, settings in [
        (other_data, SETTINGS),
        (data, {**SETTINGS, "batch_size": 16}),
        (data, {**SETTINGS, "optimizer": "sgd"}),
    ]:
        got = train_members(approach, members, *data_, **settings, program_key=key)
        expected = train_members(approach, members, *data_, **settings)
        for a, b in zip(got, expected, strict=True):
            assert_same_outcome(a, b)
    mine = [k for k in stacked._PROGRAMS if k[0] == key]
    assert len(mine) == 4


def test_a_member_that_fails_in_a_program_started_over_fails_alone(data):
    approach, members = _members("soft_round", data[1], (1, 2), (0.01, 0.01), (2.0, 4.0))
    key = ("test", "fails")
    train_members(approach, members, *data, **SETTINGS, program_key=key)
    poisoned = [replace(members[0], learning_rate=1e9), members[1]]
    got = train_members(approach, poisoned, *data, **SETTINGS, program_key=key)
    assert got[0].error is not None and got[1].error is None
    assert_same_outcome(got[1], train_members(approach, members[1:], *data, **SETTINGS)[0])


def test_programs_kept_are_bounded(data, monkeypatch):
    monkeypatch.setattr(stacked, "KEPT_PROGRAMS", 2)
    approach, members = _members("regression", data[1], (1,), (0.01,), (None,))
    for n in range(4):
        train_members(approach, members, *data, **SETTINGS, program_key=("test", "bound", n))
    assert [k[0][2] for k in stacked._PROGRAMS if k[0][:2] == ("test", "bound")] == [2, 3]
