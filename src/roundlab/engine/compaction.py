"""Which members a stacked program computes, and when to rebuild it with fewer.

A group's members stop at their own epochs; kept in the program, a stopped member costs as
much as a live one until the last member stops. Compaction rebuilds the program with the live
members only: their weights, kept weights and optimizer state (Adam's moments, the shared
iteration count) are gathered into a smaller stack, and the epoch program is traced again.

The rule: rebuild when the live members fit in half of the stack or less. A rebuild costs one
trace (about 0.4-0.9 s on the 2-core CPU, seconds with XLA), a stopped member an epoch's
arithmetic (about 0.4 ms on the CPU); halving bounds the rebuilds of a stack of S slots to
log2(S / LANES) and the work spent on stopped members to at most the live members' own
(bench/compaction.py measures it, and an eager rule that saved nothing more).

Stacks have a multiple of ``LANES`` slots, the live members then copies of the first
(computed, never read). TensorFlow's CPU kernels run elementwise ops in SIMD packets of 4, 8 or
16 floats and the last few elements of a tensor one at a time, and the two paths of exp, log,
sigmoid, reciprocal, ... differ in the last bit: without the padding, the member that happens
to sit at the end of the stack computes its tail elements differently from the same member
elsewhere, so its outcome would depend on the group's size, and on compaction.
"""

from __future__ import annotations

import numpy as np

# A multiple of every x86 float packet width (SSE 4, AVX 8, AVX-512 16).
LANES = 16


def slots(live: np.ndarray) -> np.ndarray:
    """Member index of each stack slot: the ``live`` members, then copies of the first up to a
    multiple of ``LANES``."""
    live = np.asarray(live, dtype=np.int64)
    padding = -len(live) % LANES
    return np.concatenate([live, np.full(padding, live[0], dtype=np.int64)])


def worth_compacting(live: int, stack: int) -> bool:
    """Whether a stack of ``stack`` slots with ``live`` live members is to be rebuilt: when the
    live members' stack is half of it or less."""
    return live > 0 and live + -live % LANES <= stack // 2


def carry(old, new, positions: np.ndarray) -> None:
    """Give program ``new`` the state of program ``old``'s slots ``positions``: live and kept
    weights, and the optimizer's variables (per-slot slots gathered, its iteration count and
    rate as they are)."""
    pairs = zip(
        [*old.model.variables, *old.model.kept, *old.optimizer.variables],
        [*new.model.variables, *new.model.kept, *new.optimizer.variables],
        strict=True,
    )
    for source, target in pairs:
        value = source.numpy()
        target.assign(value if value.shape == tuple(target.shape) else value[positions])
