"""When members that stopped leave a stacked program.

A group's members stop at their own epochs; kept in the program, a stopped member costs as
much as a live one until the last member stops. Compaction drops its rows from the program's
state (weights, kept weights, optimizer slots, its rate and parameter): the live members' rows
are gathered into the same variables, whose number of rows is not fixed, so the epoch program
is not traced again and no member's numbers change (:mod:`roundlab.engine.stacked_mlp`).

The rule: without XLA, as soon as a member stopped (a gather of a few small tensors costs less
than one stopped member's epoch); under XLA, which compiles the program for each number of
rows, only once the live members fit in half of the stack, which bounds the compilations of a
stack of M rows to log2(M) (bench/compaction.py measures both).
"""

from __future__ import annotations


def worth_compacting(live: int, stack: int, jit_compile: bool) -> bool:
    """Whether a stack of ``stack`` rows with ``live`` live members is to be compacted."""
    if live == 0 or live == stack:
        return False
    return live <= stack // 2 if jit_compile else True
