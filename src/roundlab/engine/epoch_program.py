"""One epoch of a stacked group's members as one ``tf.function`` (:class:`EpochProgram`), and
what each member brings to it (:class:`Rows`); :mod:`roundlab.engine.stacked` drives it epoch
by epoch and gives the semantics.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import tensorflow as tf

from roundlab.engine import stacked_mlp
from roundlab.engine.members import HISTORY_KEYS
from roundlab.engine.stacked_mlp import Layout, padded
from roundlab.engine.stacked_optimizers import StackedOptimizer


class Rows:
    """What each member brings to the program besides the data, one row per member:
    ``weights`` (M, width), ``rates`` (M,), ``knobs`` (M,) or None, ``val_masks`` (M, V) or
    None, its training ``rows`` (their number per member) for ``batch_size``."""

    def __init__(
        self,
        weights: np.ndarray,
        rates: np.ndarray,
        knobs: np.ndarray | None,
        val_masks: np.ndarray | None,
        rows: Sequence[np.ndarray],
        batch_size: int,
    ):
        self.weights, self.rates, self.knobs = weights, rates, knobs
        self.val_masks = None if val_masks is None else np.asarray(val_masks, dtype=bool)
        self.sizes = np.asarray([len(r) for r in rows], dtype=np.float32)
        steps = math.ceil(max(len(r) for r in rows) / batch_size)
        self.last = np.asarray([len(r) for r in rows], dtype=np.int32) - (steps - 1) * batch_size


class EpochProgram:
    """One epoch of every member as one ``tf.function``: ``program(orders)`` returns
    HISTORY_KEYS x M values. The members' state is held in variables with any number of rows,
    so :meth:`select` (the members that stay, by row) costs a gather, not a new trace."""

    def __init__(
        self,
        lay: Layout,
        rows: Rows,
        activations: tuple[Any, Any],
        approach: Any,
        stepper: StackedOptimizer,
        data: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        batch_size: int,
        jit_compile: bool,
    ):
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
        self.lay, self.approach, self.stepper = lay, approach, stepper
        self.hidden, self.head = activations
        self.x_train, self.y_train = tf.constant(x_train), tf.constant(y_train.reshape(-1))
        # validation rows padded to a multiple of LANES with copies of the first, never counted
        self.n_val = len(x_val)
        extra = np.zeros(padded(self.n_val) - self.n_val, dtype=np.int64)
        pad = np.concatenate([np.arange(self.n_val), extra])
        self.x_val = tf.constant(x_val[pad][None])
        self.y_val = tf.constant(y_val.reshape(-1)[pad][None])
        self.batch_size = batch_size
        self.sizes = rows.sizes
        # 1 / batch count, rounded once here: in the program, the gradient of a mean divides
        # ones by the count, which TensorFlow rewrites into its reciprocal kernel, whose SIMD
        # and scalar paths differ in the last bit.
        self.inverse_full = tf.constant(np.float32(1) / np.float32(batch_size))

        self._rows = [
            tf.Variable(value, shape=tf.TensorShape([None, *value.shape[1:]]), trainable=False)
            for value in _state(rows, stepper.slots)
        ]
        self.theta, self.kept, *rest = self._rows
        self.slots, rest = rest[: stepper.slots], rest[stepper.slots :]
        self.rates, *rest = rest
        self.knobs = None if rows.knobs is None else rest.pop(0)
        self.last_batch, self.inverse_last, *rest = rest
        self.val_mask = None if rows.val_masks is None else rest.pop(0)
        self.iterations = tf.Variable(0.0, trainable=False)
        width = padded(batch_size)
        mask = tf.TensorSpec([None], tf.bool)
        signature = [tf.TensorSpec([None, None, width], tf.int32), mask]
        # Written with TensorFlow's own loop, not converted by AutoGraph: converting the epoch's
        # code again for every group's trace was a fifth of the trace's cost.
        self._run = tf.function(
            self._epoch, jit_compile=jit_compile, input_signature=signature, autograph=False
        )
        self._keep = tf.function(self._keep_where, input_signature=[mask], autograph=False)

    def __call__(self, orders: np.ndarray, keep: np.ndarray) -> np.ndarray:
        """The epoch of ``orders``, after the current weights of the members where ``keep``
        (one per row: the last epoch's improvements) became their kept weights, as
        :meth:`keep` does; done here, not by a call of its own, which cost as much as 0.7 ms
        an epoch."""
        values = self._run(tf.constant(orders), tf.constant(keep, dtype=tf.bool)).numpy()
        # the epoch means of the training sums, divided here for the reason of inverse_last
        half = len(HISTORY_KEYS) // 2
        values[:half] /= self.sizes
        return values.astype(np.float64)

    def reset(self, rows: Rows) -> None:
        """Start over with other members, ``rows``, on the same data and with the same
        settings: the state's variables take their rows (any number of them), the step count
        goes back to 0, and the traced program is kept. ``rows`` must have knobs and
        validation masks where the program's first members had them."""
        values = _state(rows, len(self.slots))
        if len(values) != len(self._rows):
            raise ValueError(
                "a program starts over with members that have knobs and validation masks where "
                f"its first members had them. Received: {len(values)} state tensors for "
                f"{len(self._rows)}"
            )
        for variable, value in zip(self._rows, values, strict=True):
            variable.assign(value)
        self.iterations.assign(0.0)
        self.sizes = rows.sizes

    def keep(self, mask: np.ndarray) -> None:
        """Copy the current weights of the members where ``mask`` (one per row) is true into
        the kept weights."""
        self._keep(tf.constant(mask, dtype=tf.bool))

    def kept_rows(self) -> np.ndarray:
        """The kept weights, one row per member in the program."""
        return self.kept.numpy()

    def select(self, rows: np.ndarray) -> None:
        """Keep the members of ``rows`` only, in that order."""
        index = tf.constant(rows, dtype=tf.int64)
        for variable in self._rows:
            variable.assign(tf.gather(variable, index))
        self.sizes = self.sizes[rows]

    def _keep_where(self, mask: tf.Tensor) -> None:
        self.kept.assign(tf.where(mask[:, None], self.theta, self.kept))

    def _epoch(self, orders: tf.Tensor, keep: tf.Tensor) -> tf.Tensor:
        self._keep_where(keep)
        steps = tf.shape(orders)[0]
        positions = tf.range(orders.shape[2])

        def step_of(step: tf.Tensor, totals: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
            limit = tf.where(step == steps - 1, self.last_batch, self.batch_size)
            real = positions[None, :] < limit[:, None]
            inverse = tf.where(step == steps - 1, self.inverse_last, self.inverse_full)
            return step + 1, totals + self._step(orders[step], real, inverse)

        start = (tf.constant(0), tf.zeros((len(HISTORY_KEYS) // 2, tf.shape(orders)[1])))
        _, totals = tf.while_loop(lambda step, _: step < steps, step_of, start)
        out = self._forward(self.x_val)
        val = per_example(self.approach, self.y_val, out)[:, :, : self.n_val]
        if self.val_mask is None:
            val = tf.reduce_mean(val, axis=2)
        else:  # each member's mean over its own validation rows (none: 0)
            val = tf.math.divide_no_nan(
                tf.reduce_sum(tf.where(self.val_mask, val, 0.0), axis=2),
                tf.reduce_sum(tf.cast(self.val_mask, tf.float32), axis=1),
            )
        return tf.concat([totals, val], axis=0)

    def _forward(self, x: tf.Tensor) -> tf.Tensor:
        return stacked_mlp.forward(self.lay, self.theta, x, self.hidden, self.head, self.knobs)

    def _step(self, order: tf.Tensor, real: tf.Tensor, inverse: tf.Tensor) -> tf.Tensor:
        """One optimizer step of every member on its batch ``order`` (M, B); ``real`` (M, B)
        masks the padding, ``inverse`` (M,) is 1 / its count of real examples. Returns the
        per-member sums of loss and metrics over the batch."""
        y = tf.gather(self.y_train, order)
        with tf.GradientTape() as tape:
            tape.watch(self.theta)
            values = per_example(self.approach, y, self._forward(tf.gather(self.x_train, order)))
            values = tf.where(real, values, 0.0)[:, :, : self.batch_size]
            # A sum of per-member means: member m's gradient is that of its own mean loss.
            total = tf.reduce_sum(tf.reduce_sum(values[0], axis=1) * inverse)
        gradient = tape.gradient(total, self.theta)
        self.iterations.assign_add(1.0)
        self.stepper.step(self.theta, self.slots, gradient, self.rates, self.iterations)
        return tf.reduce_sum(values, axis=2)


def _state(rows: Rows, slots: int) -> list[tf.Tensor]:
    """The values of a program's state, one row per member: weights, kept weights, the
    optimizer's ``slots``, rates, knobs (when the head has a parameter), the last batch's size
    and its inverse, validation masks (when given)."""
    values = [
        rows.weights,
        rows.weights,
        *(np.zeros_like(rows.weights) for _ in range(slots)),
        rows.rates.reshape(-1, 1).astype(np.float32),
        rows.knobs,
        rows.last.astype(np.int32),
        np.float32(1) / rows.last.astype(np.float32),
        rows.val_masks,
    ]
    return [tf.constant(v) for v in values if v is not None]


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
