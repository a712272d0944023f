"""member_bytes counts what one member holds, its weights, batch and validation rows padded to
a multiple of 16 as the stacked program holds them."""

from __future__ import annotations

from roundlab.engine import member_bytes
from roundlab.engine.stacked_mlp import padded

from .support import HIDDEN, N_FEATURES, initial_weights, setup


def test_member_bytes_counts_build_mlps_weights_three_times_plus_optimizer_slots(data):
    cfg, approach = setup("classification", data[1])
    weights = sum(w.size for w in initial_weights(cfg, approach, 0))
    no_data = {"batch_size": 0, "n_val": 0}
    for slots in (0, 2):
        got = member_bytes(N_FEATURES, HIDDEN, approach.units, optimizer_slots=slots, **no_data)
        assert got == 4 * padded(weights) * (3 + slots)


def test_member_bytes_of_the_smallest_network_by_hand():
    # 1 feature, 1 hidden unit, 1 output: 4 weights, a row of 16, x (3 + 2 Adam slots) = 80;
    # a batch of 1, 16 examples: 16 x (1 input + 2 hidden + 2 output + 6 per-example values);
    # 1 validation example, 16 rows: 16 x (1 hidden + 2 output + 5 per-example values)
    assert member_bytes(1, [1], 1, batch_size=1, n_val=1) == 4 * (80 + 16 * 11 + 16 * 8)
