"""Train a group of same-shaped MLPs as one program: ``train_members(...) -> [MemberOutcome]``.

A sweep trains many small networks on the same data that differ only in seed and knob. Trained
one ``keras.Model.fit`` at a time, each epoch costs tens of milliseconds of dispatch; stacked
on a leading axis (roundlab.engine.stacked_mlp) they train as one program: one
``tf.function`` per epoch runs every step in a ``tf.range`` loop and the validation pass, for
all members at once.

Semantics, per member, as Keras ``fit(shuffle=True)`` with ``TerminateOnNaN`` and optionally
``EarlyStopping(restore_best_weights=True)``:

- epoch e visits the training set in the order ``default_rng((seed, e)).permutation(n)``,
  gathered inside the program, in ceil(n / batch_size) steps; the last batch is partial and is
  padded and masked, so every batch mean is over real examples only;
- the loss of a step is the mean per-example loss of the batch (Keras' sum_over_batch_size);
  the program differentiates the sum over members of these means, so member m's gradient is
  its own loss's; the Keras optimizer updates the stacked variables, and its state (Adam's
  moments) is elementwise, hence per member;
- members may have their own learning rates: the optimizer then steps at rate 1 and each
  member's update is scaled by its rate, which is the same step because every Keras optimizer
  roundlab uses (SGD with momentum, Adam, RMSprop) moves a weight by the rate times a quantity
  that does not depend on the rate;
- the epoch's loss and metrics are means over the examples of the epoch (the training forward
  passes before each update), validation ones over the validation set after the epoch;
- a member whose training loss is not finite fails at that epoch; the others are unaffected;
- members that stopped leave the program once the live ones fit in half of it, and no member's
  numbers depend on its group or its slot (:mod:`roundlab.engine.compaction`).

Memory per slot (a group fills a multiple of 16; float32; :func:`member_bytes`), P weights per
network (sum over layers of (in + 1) out), B the batch size, F the number of features, H the
sum of hidden widths, U the output units and V the validation size:

    4 (P (3 + s) + B (F + 2 H + 2 U + 6) + V (H + 2 U + 5)) bytes

3 + s copies of the weights: live, kept (best or last good epoch), gradient, and s optimizer
slots (Adam 2); one batch's gathered inputs, pre- and post-activations kept for the backward
pass, per-example loss and metrics; the validation forward pass (inputs are shared). A 64-64
MLP on 10 features with batch 64 and 300 validation examples needs about 0.33 MB per member.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from roundlab.engine import compaction, kfold, models, stacked_mlp
from roundlab.engine.early_stopping import EarlyStopping, Tracker
from roundlab.engine.members import HISTORY_KEYS, Member, MemberOutcome, check_group, outcomes
from roundlab.engine.stacked_mlp import StackedMLP, layer_shapes


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
) -> list[MemberOutcome]:
    """Train every member (same architecture and data, own seed, initial weights and knob)
    together and return their outcomes in order.

    ``approach``: a roundlab.approaches.Approach; the network is the one
    ``build_mlp(n_features, model_cfg, approach)`` builds from ``hidden_sizes``,
    ``hidden_activation`` (+ params) and ``dropout``, which must be 0. ``optimizer`` and
    ``learning_rate``: as ``keras.optimizers.get``; a member's own ``learning_rate`` overrides
    the latter. ``jit_compile``: XLA-compile the epoch
    program (slower on a CPU, usually faster on a GPU). Raises ValueError for what cannot be
    vectorised (dropout, numpy-backed activations) and for inconsistent inputs.

    Members may train on their own rows (k-fold: members x folds as members): ``train_rows``,
    per member the indices of the ``x_train`` rows it trains on (every member's needing the
    same number of batches), ``val_masks`` (M, len(x_val)) which validation rows each member is
    validated on (metrics are means over those), ``member_epochs`` per member the epochs it
    trains (no early stopping then: the refit).

    ``compact``: rebuild the program with the members still training once they fit in half of
    it (:mod:`roundlab.engine.compaction`); every outcome is the same to the bit either way.
    """
    check_group(members, dropout, batch_size=batch_size, epochs=epochs)
    head_shapes = stacked_mlp.head_shapes(approach)
    shapes = layer_shapes(np.shape(x_train)[1], hidden_sizes, approach.units) + head_shapes
    initial = stacked_mlp.stack_weights(members, shapes)
    hidden = stacked_mlp.hidden_activation(hidden_activation, hidden_activation_params)
    stacked_mlp.output_head(approach, [m.knob for m in members])  # refuses knobs before padding
    rates = [learning_rate if m.learning_rate is None else m.learning_rate for m in members]
    shared = len(set(rates)) == 1
    scales = np.asarray(rates, dtype=np.float32)
    rows = kfold.member_rows(train_rows, len(members), len(x_train), batch_size)

    def build(index: np.ndarray) -> EpochProgram:
        """The program of the members ``index`` (one per slot), at their initial weights."""
        head = stacked_mlp.output_head(approach, [members[i].knob for i in index])
        model = StackedMLP([w[index] for w in initial], hidden, head, len(head_shapes))
        opt = models.optimizer(optimizer, rates[0] if shared else 1.0)
        opt.build(model.variables)
        data = (x_train, y_train, x_val, y_val)
        own = None if shared else scales[index]
        program = EpochProgram(model, approach, opt, data, batch_size, jit_compile, own)
        masks = None if val_masks is None else np.asarray(val_masks)[index]
        program.own_rows([len(rows[i]) for i in index], masks)
        return program

    tracker = Tracker(len(members), early_stopping)
    if member_epochs is not None:
        tracker = kfold.FixedEpochs(member_epochs)
    live = np.arange(len(members))
    index = compaction.slots(live)
    program = build(index)
    kept = [w.copy() for w in initial]
    history = []
    for epoch in range(epochs):
        group = [members[i] for i in index]
        orders = shuffled_orders(group, epoch, [rows[i] for i in index], batch_size)
        values = np.full((len(HISTORY_KEYS), len(members)), np.nan)
        values[:, live] = program(orders)[:, : len(live)]
        history.append(values)
        # a padding slot keeps what its member keeps; only the member's own slot is read
        program.model.keep(tracker.update(epoch, values)[index])
        if tracker.done:
            break
        running = np.flatnonzero(tracker.running)
        if compact and compaction.worth_compacting(len(running), len(index)):
            _save_kept(kept, program, live)
            smaller = build(compaction.slots(running))
            compaction.carry(program, smaller, np.searchsorted(live, compaction.slots(running)))
            program, live, index = smaller, running, compaction.slots(running)
    _save_kept(kept, program, live)
    return outcomes(np.stack(history), tracker, kept, rates)


def _save_kept(kept: list[np.ndarray], program: EpochProgram, live: np.ndarray) -> None:
    """Copy the kept weights of the ``live`` members (the program's first slots) into ``kept``."""
    for everyone, stack in zip(kept, program.model.kept_weights(), strict=True):
        everyone[live] = stack[: len(live)]


def shuffled_orders(
    members: Sequence[Member], epoch: int, rows: Sequence[np.ndarray], batch_size: int
) -> np.ndarray:
    """(steps, M, batch_size) int32 example indices of the epoch: member m's rows ``rows[m]``
    in the order of the permutation ``default_rng((seed, epoch)).permutation(len(rows[m]))``,
    padded with index 0 up to a whole number of batches (of the longest)."""
    steps = math.ceil(max(len(r) for r in rows) / batch_size)
    orders = np.zeros((len(members), steps * batch_size), dtype=np.int32)
    for m, member in enumerate(members):
        n = len(rows[m])
        orders[m, :n] = rows[m][np.random.default_rng((member.seed, epoch)).permutation(n)]
    return orders.reshape(len(members), steps, batch_size).transpose(1, 0, 2)


class EpochProgram:
    """One epoch of every member as one ``tf.function``: returns HISTORY_KEYS x M values."""

    def __init__(
        self,
        model: StackedMLP,
        approach: Any,
        optimizer: keras.optimizers.Optimizer,
        data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        batch_size: int,
        jit_compile: bool,
        scales: np.ndarray | None = None,
    ):
        """``scales`` (M,): each member's learning rate when the optimizer steps at rate 1;
        None when the optimizer already steps at the one rate of every member."""
        x_train, y_train, x_val, y_val = (np.asarray(a, dtype=np.float32) for a in data)
        if len(x_train) != len(y_train) or len(x_val) != len(y_val):
            raise ValueError(
                f"features and labels must have as many rows. Received: x_train={x_train.shape}, "
                f"y_train={y_train.shape}, x_val={x_val.shape}, y_val={y_val.shape}"
            )
        if x_val.shape[1:] != x_train.shape[1:]:
            raise ValueError(
                f"x_val must have the features of x_train. Received: x_train={x_train.shape}, "
                f"x_val={x_val.shape}"
            )
        self.x_train, self.y_train = tf.constant(x_train), tf.constant(y_train.reshape(-1))
        self.x_val, self.y_val = tf.constant(x_val[None]), tf.constant(y_val.reshape(1, -1))
        self.batch_size = batch_size
        self.own_rows([len(x_train)], None)
        self.model, self.approach, self.optimizer = model, approach, optimizer
        self.scales = None if scales is None else tf.constant(scales)
        self._run = tf.function(self._epoch, jit_compile=jit_compile)

    def own_rows(self, sizes: Sequence[int], val_masks: np.ndarray | None) -> None:
        """Each member's number of training rows (one size for all, or one per member) and
        its validation rows (None: all of them)."""
        self.sizes = np.asarray(sizes, dtype=np.float32)
        steps = math.ceil(max(sizes) / self.batch_size)
        last = np.asarray(sizes, dtype=np.int32) - (steps - 1) * self.batch_size
        self.last_batch = tf.constant(last)
        # 1 / batch count, rounded once here: in the program, the gradient of a mean divides
        # ones by the count, which TensorFlow rewrites into its reciprocal kernel, whose SIMD
        # and scalar paths differ in the last bit (so a member's step would depend on its slot).
        self.inverse_full = tf.constant(np.float32(1) / np.float32(self.batch_size))
        self.inverse_last = tf.constant(np.float32(1) / last.astype(np.float32))
        self.val_mask = None if val_masks is None else tf.constant(np.asarray(val_masks, bool))

    def __call__(self, orders: np.ndarray) -> np.ndarray:
        values = self._run(tf.constant(orders)).numpy()
        # the epoch means of the training sums, divided here for the reason of inverse_last
        half = len(HISTORY_KEYS) // 2
        values[:half] /= self.sizes
        return values.astype(np.float64)

    def _epoch(self, orders: tf.Tensor) -> tf.Tensor:
        steps = tf.shape(orders)[0]
        totals = tf.zeros((len(HISTORY_KEYS) // 2, orders.shape[1]))
        positions = tf.range(self.batch_size)
        for step in tf.range(steps):
            limit = tf.where(step == steps - 1, self.last_batch, self.batch_size)
            real = positions[None, :] < limit[:, None]
            inverse = tf.where(step == steps - 1, self.inverse_last, self.inverse_full)
            totals += self._step(orders[step], real, inverse)
        val = per_example(self.approach, self.y_val, self.model(self.x_val))
        if self.val_mask is None:
            val = tf.reduce_mean(val, axis=2)
        else:  # each member's mean over its own validation rows (none: 0)
            val = tf.math.divide_no_nan(
                tf.reduce_sum(tf.where(self.val_mask, val, 0.0), axis=2),
                tf.reduce_sum(tf.cast(self.val_mask, tf.float32), axis=1),
            )
        return tf.concat([totals, val], axis=0)

    def _step(self, order: tf.Tensor, real: tf.Tensor, inverse: tf.Tensor) -> tf.Tensor:
        """One optimizer step of every member on its batch ``order`` (M, B); ``real`` (M, B)
        masks the padding, ``inverse`` (M,) is 1 / its count of real examples. Returns the
        per-member sums of loss and metrics over the batch."""
        y = tf.gather(self.y_train, order)
        with tf.GradientTape() as tape:
            values = per_example(self.approach, y, self.model(tf.gather(self.x_train, order)))
            values = tf.where(real, values, 0.0)
            # A sum of per-member means: member m's gradient is that of its own mean loss.
            total = tf.reduce_sum(tf.reduce_sum(values[0], axis=1) * inverse)
        gradients = tape.gradient(total, self.model.variables)
        if self.scales is None:
            self.optimizer.apply(gradients, self.model.variables)
        else:
            self._scaled_apply(gradients)
        return tf.reduce_sum(values, axis=2)

    def _scaled_apply(self, gradients: list[tf.Tensor]) -> None:
        """The optimizer's step at rate 1, scaled per member by its own rate."""
        before = [tf.identity(v) for v in self.model.variables]
        self.optimizer.apply(gradients, self.model.variables)
        for variable, old in zip(self.model.variables, before, strict=True):
            scale = tf.reshape(self.scales, [-1] + [1] * (len(variable.shape) - 1))
            variable.assign(old + scale * (variable - old))


def per_example(approach: Any, y: tf.Tensor, out: tf.Tensor) -> tf.Tensor:
    """(4, M, B): per-example loss, exact match, absolute error and within-one of the integer
    readout, for labels y (M, B) and outputs out (M, B, units)."""
    members, batch = tf.shape(out)[0], tf.shape(out)[1]
    flat_out = tf.reshape(out, (members * batch, out.shape[-1]))
    flat_y = tf.reshape(tf.broadcast_to(y, (members, batch)), (-1,))
    loss = approach.loss(flat_y, flat_out)
    error = tf.abs(approach.decode_tf(flat_out) - flat_y)
    values = [loss, tf.cast(error == 0, tf.float32), error, tf.cast(error <= 1, tf.float32)]
    return tf.reshape(tf.stack(values), (len(values), members, batch))


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
    weights = sum(math.prod(shape) for shape in layer_shapes(n_features, hidden_sizes, units))
    hidden = sum(hidden_sizes)
    batch = batch_size * (n_features + 2 * hidden + 2 * units + 6)
    validation = n_val * (hidden + 2 * units + 5)
    return 4 * (weights * (3 + optimizer_slots) + batch + validation)
