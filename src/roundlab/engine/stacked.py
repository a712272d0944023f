"""Train a group of same-shaped MLPs as one program: ``train_members(...) -> [MemberOutcome]``.

A sweep trains many small networks on the same data that differ only in seed, learning rate
and knob. Trained one ``keras.Model.fit`` at a time, each epoch costs tens of milliseconds of
dispatch; stacked on a leading axis (:mod:`roundlab.engine.stacked_mlp`) they train as one
program: one ``tf.function`` per epoch runs every step in a ``tf.range`` loop and the
validation pass, for all members at once.

Semantics, per member, as Keras ``fit(shuffle=True)`` with ``TerminateOnNaN`` and optionally
``EarlyStopping(restore_best_weights=True)``:

- epoch e visits the training set in the order ``default_rng((seed, e)).permutation(n)``,
  gathered inside the program, in ceil(n / batch_size) steps; the last batch is partial and is
  padded and masked, so every batch mean is over real examples only;
- the loss of a step is the mean per-example loss of the batch (Keras' sum_over_batch_size);
  the program differentiates the sum over members of these means, so member m's gradient is
  its own loss's;
- each member takes the step of its Keras optimizer at its own learning rate, op for op
  (:mod:`roundlab.engine.stacked_optimizers`); the optimizer's state is elementwise, hence per
  member;
- the epoch's loss and metrics are means over the examples of the epoch (the training forward
  passes before each update), validation ones over the validation set after the epoch;
- a member whose training loss is not finite fails at that epoch; the others are unaffected;
- members that stopped leave the program (:mod:`roundlab.engine.compaction`), and no member's
  numbers depend on its group, its row or who left before it: a member trains in a group
  exactly as it trains alone (tests/engine/test_group_independence.py).

Memory per member (float32; :func:`member_bytes`), W its weights padded to a multiple of 16,
B and V the batch size and the validation size each padded to a multiple of 16, F the number
of features, H the sum of hidden widths and U the output units:

    4 (W (3 + s) + B (F + 2 H + 2 U + 6) + V (H + 2 U + 5)) bytes

3 + s copies of the weights: live, kept (best or last good epoch), gradient, and s optimizer
slots (Adam 2); one batch's gathered inputs, pre- and post-activations kept for the backward
pass, per-example loss and metrics; the validation forward pass (inputs are shared). A 64-64
MLP on 10 features with batch 64 and 300 validation examples needs about 0.33 MB per member.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from roundlab.engine import compaction, kfold, stacked_mlp
from roundlab.engine.early_stopping import EarlyStopping, Tracker
from roundlab.engine.epoch_program import EpochProgram, Rows
from roundlab.engine.members import HISTORY_KEYS, Member, MemberOutcome, check_group, outcomes
from roundlab.engine.stacked_mlp import LANES, layer_shapes, padded
from roundlab.engine.stacked_optimizers import stacked_optimizer


def train_members(
    approach: Any,
    members: Sequence[Member],
    x_train: np.ndarray,
    y_train: np.ndarray,
    x_val: np.ndarray,
    y_val: np.ndarray,
    *,
    hidden_sizes: Sequence[int],
    hidden_activation: str = "relu",
    hidden_activation_params: dict[str, float] | None = None,
    dropout: float = 0.0,
    optimizer: str = "adam",
    learning_rate: float = 1e-3,
    batch_size: int = 64,
    epochs: int = 50,
    early_stopping: EarlyStopping | None = None,
    jit_compile: bool = False,
    train_rows: Sequence[np.ndarray] | None = None,
    val_masks: np.ndarray | None = None,
    member_epochs: Sequence[int] | None = None,
    compact: bool = True,
    program_key: Hashable | None = None,
) -> list[MemberOutcome]:
    """Train every member (same architecture and data, own seed, initial weights, learning
    rate and knob) together and return their outcomes in order.

    ``approach``: a roundlab.approaches.Approach; the network is the one
    ``build_mlp(n_features, model_cfg, approach)`` builds from ``hidden_sizes``,
    ``hidden_activation`` (+ params) and ``dropout``, which must be 0. ``optimizer``: adam, sgd
    or rmsprop (:mod:`roundlab.engine.stacked_optimizers`), at ``learning_rate`` unless a
    member has its own. ``jit_compile``: XLA-compile the epoch program (slower on a CPU,
    usually faster on a GPU). Raises ValueError for what cannot be vectorised (dropout,
    numpy-backed activations, another optimizer) and for inconsistent inputs.

    Members may train on their own rows (k-fold: members x folds as members): ``train_rows``,
    per member the indices of the ``x_train`` rows it trains on (every member's needing the
    same number of batches), ``val_masks`` (M, len(x_val)) which validation rows each member is
    validated on (metrics are means over those), ``member_epochs`` per member the epochs it
    trains (no early stopping then: the refit).

    ``compact``: drop the members that stopped from the program
    (:mod:`roundlab.engine.compaction`); every outcome is the same to the bit either way.

    ``program_key``: what fixes the program beyond the arguments here (the approach's loss,
    head and readout, which are functions): given, the program traced for the same key, data
    and settings is started over with these members rather than traced again
    (:func:`_program`); a worker's later rounds of a family train in its first round's program.
    """
    check_group(members, dropout, batch_size=batch_size, epochs=epochs)
    lay = stacked_mlp.layout(np.shape(x_train)[1], hidden_sizes, approach)
    initial = lay.rows(members)
    hidden = stacked_mlp.hidden_activation(hidden_activation, hidden_activation_params)
    head, knobs = stacked_mlp.output_head(approach, [m.knob for m in members])
    stepper = stacked_optimizer(optimizer)
    rates = [learning_rate if m.learning_rate is None else m.learning_rate for m in members]
    rows = kfold.member_rows(train_rows, len(members), len(x_train), batch_size)
    state = Rows(initial, np.asarray(rates, dtype=np.float32), knobs, val_masks, rows, batch_size)
    data = (x_train, y_train, x_val, y_val)
    settings = (lay, hidden_activation, _plain(hidden_activation_params), optimizer, batch_size)
    program = _program(
        None
        if program_key is None
        else (program_key, settings, jit_compile, val_masks is None, _digest(data)),
        lambda: EpochProgram(
            lay, state, (hidden, head), approach, stepper, data, batch_size, jit_compile
        ),
        state,
    )
    tracker = Tracker(len(members), early_stopping)
    if member_epochs is not None:
        tracker = kfold.FixedEpochs(member_epochs)
    live = np.arange(len(members))  # the member of each row of the program
    keep = np.zeros(len(live), dtype=bool)  # rows whose weights the next call keeps first
    kept = initial.copy()
    history = []
    for epoch in range(epochs):
        orders = shuffled_orders(
            [members[i] for i in live], epoch, [rows[i] for i in live], batch_size
        )
        values = np.full((len(HISTORY_KEYS), len(members)), np.nan)
        values[:, live] = program(orders, keep)
        history.append(values)
        keep = tracker.update(epoch, values)[live]
        if tracker.done:
            break
        running = np.flatnonzero(tracker.running)
        if compact and compaction.worth_compacting(len(running), len(live), jit_compile):
            program.keep(keep)
            kept[live] = program.kept_rows()
            program.select(np.searchsorted(live, running))
            live, keep = running, np.zeros(len(running), dtype=bool)
    program.keep(keep)
    kept[live] = program.kept_rows()
    return outcomes(np.stack(history), tracker, [lay.weights(row) for row in kept], rates)


# This process's traced programs by key (train_members' program_key, settings, data), the
# most recently used last; a program holds its graph and its last members' state.
_PROGRAMS: OrderedDict[Hashable, EpochProgram] = OrderedDict()
KEPT_PROGRAMS = 16


def _program(key: Hashable | None, make: Callable[[], EpochProgram], state: Rows) -> EpochProgram:
    """The program of ``key`` started over with ``state`` (tracing it, about a quarter of a
    second, was most of a small group's set-up), else a new one from ``make``."""
    if key is None:
        return make()
    program = _PROGRAMS.pop(key, None)
    if program is None:
        program = make()
    else:
        program.reset(state)
    _PROGRAMS[key] = program
    while len(_PROGRAMS) > KEPT_PROGRAMS:
        _PROGRAMS.popitem(last=False)
    return program


def _digest(arrays: Sequence[np.ndarray]) -> str:
    """The arrays' shapes, types and bytes: a program holds its data as constants."""
    digest = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        digest.update(f"{a.shape}{a.dtype}".encode() + a.tobytes())
    return digest.hexdigest()


def _plain(params: dict[str, float] | None) -> tuple[tuple[str, float], ...]:
    return tuple(sorted((params or {}).items()))


def shuffled_orders(
    members: Sequence[Member], epoch: int, rows: Sequence[np.ndarray], batch_size: int
) -> np.ndarray:
    """(steps, M, batch) int32 example indices of the epoch, batch = ``batch_size`` padded to
    a multiple of LANES: member m's rows ``rows[m]`` in the order of the permutation
    ``default_rng((seed, epoch)).permutation(len(rows[m]))``, each batch padded with index 0 up
    to its full size and the last one up to a whole batch (of the longest)."""
    steps = math.ceil(max(len(r) for r in rows) / batch_size)
    orders = np.zeros((len(members), steps * batch_size), dtype=np.int32)
    for m, member in enumerate(members):
        n = len(rows[m])
        orders[m, :n] = rows[m][np.random.default_rng((member.seed, epoch)).permutation(n)]
    orders = orders.reshape(len(members), steps, batch_size).transpose(1, 0, 2)
    extra = -batch_size % LANES
    return np.pad(orders, [(0, 0), (0, 0), (0, extra)]) if extra else orders


def member_bytes(
    n_features: int,
    hidden_sizes: Sequence[int],
    units: int,
    batch_size: int,
    n_val: int,
    optimizer_slots: int = 2,
) -> int:
    """Bytes one member adds to a group run (the module docstring's formula); divide the memory
    to spare by it to size chunks. ``optimizer_slots``: state tensors per weight (Adam 2,
    SGD 0, RMSprop 1)."""
    weights = padded(
        sum(math.prod(shape) for shape in layer_shapes(n_features, hidden_sizes, units))
    )
    hidden = sum(hidden_sizes)
    batch = padded(batch_size) * (n_features + 2 * hidden + 2 * units + 6)
    validation = padded(n_val) * (hidden + 2 * units + 5)
    return 4 * (weights * (3 + optimizer_slots) + batch + validation)
