"""M members of one MLP shape stacked on a leading axis, each member's weights one row.

Member m's weights, in ``build_mlp(...).model.get_weights()`` order (kernel, bias per Dense
layer, then the output head's own weights, e.g. CORAL's biases), are flattened and concatenated
into row m of ``theta`` (M, width) (:class:`Layout`). Dense layer l of member m maps inputs
h (M, B, in) to ``h @ W_l[m] + b_l[m]``: one batched matmul per layer, in which member m's
numbers never meet member n's. The hidden activation is applied elementwise; the output head
applies the approach's rounding activation ``f(z, <param>=k)`` with each member's own parameter
k, or a head layer with weights of its own, through its ``stacked(z, *weights, add_bias=...)``.

No member's numbers depend on how many members share the stack, or on its row. TensorFlow's
CPU kernels process elementwise ops in SIMD packets of 4, 8 or 16 floats and a tensor's last
few elements one at a time, and the two paths of exp, log, tanh, a reciprocal, ... differ in
the last bit; a reduction that keeps its innermost axis vectorises across the rows of the stack
in the same way. So every tensor the program computes holds a multiple of :data:`LANES` values
per member, whatever M is: a row of ``theta`` is zero-padded to a multiple of LANES (the
padding never moves: its gradient is 0, and so is every optimizer's step for it); batches and
the validation rows are padded to a multiple of LANES examples and masked; each member's
activation parameter is broadcast over its outputs; and a bias's gradient is summed over the
batch with the units padded to a multiple of LANES (:func:`add_bias`).

Only what can be computed member by member with TensorFlow ops can be stacked: dropout and
numpy-backed activations (``Spec.numpy_backed``) are refused with a ValueError, and such jobs
run one at a time through the single-run path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from roundlab import activations
from roundlab.engine.members import Member

# A multiple of every x86 float packet width (SSE 4, AVX 8, AVX-512 16).
LANES = 16


def padded(count: int) -> int:
    """``count`` rounded up to a multiple of :data:`LANES`."""
    return count + -count % LANES


def layer_shapes(n_features: int, hidden_sizes: Sequence[int], units: int) -> list[tuple[int, ...]]:
    """Shapes of one member's Dense weights in ``build_mlp(...).model.get_weights()`` order."""
    widths = [n_features, *hidden_sizes, units]
    shapes: list[tuple[int, ...]] = []
    for fan_in, fan_out in zip(widths[:-1], widths[1:], strict=True):
        shapes += [(fan_in, fan_out), (fan_out,)]
    return shapes


@dataclass(frozen=True)
class Layout:
    """Where each of a member's weights lies in its row of ``theta``: ``shapes`` in
    ``get_weights()`` order, the first ``dense`` of them the Dense layers' (kernel, bias, ...),
    the rest the output head's; ``width`` the row's length, a multiple of LANES."""

    shapes: tuple[tuple[int, ...], ...]
    dense: int

    @property
    def sizes(self) -> list[int]:
        return [math.prod(shape) for shape in self.shapes]

    @property
    def width(self) -> int:
        return padded(sum(self.sizes))

    def rows(self, members: Sequence[Member]) -> np.ndarray:
        """(M, width) float32: every member's initial weights, one row each."""
        for i, member in enumerate(members):
            got = [tuple(np.shape(w)) for w in member.initial_weights]
            if got != list(self.shapes):
                raise ValueError(
                    f"every member's initial_weights must have the shapes of build_mlp's weights "
                    f"{list(self.shapes)}. Received: members[{i}] weight shapes={got}"
                )
        out = np.zeros((len(members), self.width), dtype=np.float32)
        for m, member in enumerate(members):
            flat = [np.asarray(w, dtype=np.float32).reshape(-1) for w in member.initial_weights]
            out[m, : sum(self.sizes)] = np.concatenate(flat)
        return out

    def weights(self, row: np.ndarray) -> list[np.ndarray]:
        """One member's weights in ``get_weights()`` order, from its row."""
        ends = np.cumsum(self.sizes)
        return [
            row[end - size : end].reshape(shape)
            for end, size, shape in zip(ends, self.sizes, self.shapes, strict=True)
        ]

    def split(self, theta: tf.Tensor) -> list[tf.Tensor]:
        """The stacked weights (M, *shape) of ``theta`` (M, width), in ``get_weights()`` order."""
        pieces = tf.split(theta, [*self.sizes, self.width - sum(self.sizes)], axis=1)
        return [tf.reshape(p, (-1, *shape)) for p, shape in zip(pieces, self.shapes, strict=False)]


def layout(n_features: int, hidden_sizes: Sequence[int], approach: Any) -> Layout:
    """The layout of ``build_mlp(n_features, ..., approach)``'s weights."""
    dense = layer_shapes(n_features, hidden_sizes, approach.units)
    return Layout(tuple(dense) + tuple(head_shapes(approach)), len(dense))


@tf.custom_gradient
def add_bias(h: tf.Tensor, bias: tf.Tensor) -> tf.Tensor:
    """``h`` (M, B, U), or (M, B, 1) broadcast over the units, plus each member's ``bias``
    (M, U). The bias's gradient, the batch's sum of the upstream gradient, is taken with U
    padded to a multiple of LANES: a sum over the batch vectorises across the (member, unit)
    pairs, so with, say, 9 units the last member's sums would take the one-at-a-time path or
    not depending on M."""
    shared = h.shape[-1] == 1 and bias.shape[-1] != 1

    def gradient(upstream: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        units = upstream.shape[-1]
        extra = -units % LANES
        summed = tf.pad(upstream, [[0, 0], [0, 0], [0, extra]]) if extra else upstream
        of_bias = tf.reduce_sum(summed, axis=1)[:, :units]
        # a sum along each example's own units: the same for any M
        of_h = tf.reduce_sum(upstream, axis=2, keepdims=True) if shared else upstream
        return of_h, of_bias

    return h + tf.expand_dims(bias, 1), gradient


def hidden_activation(name: str, params: dict[str, float] | None) -> Callable[[Any], Any]:
    """The hidden layers' activation as build_mlp resolves it: a roundlab activation by
    registry name (with its parameters), else a Keras activation name."""
    if name not in activations.names():
        return keras.activations.get(name)
    act = activations.get(name, **{k: float(v) for k, v in (params or {}).items()})
    if act.spec.numpy_backed:
        raise ValueError(
            f"a numpy-backed hidden activation cannot be vectorised; run the job on its own. "
            f"Received: hidden_activation={name!r}"
        )
    return act


def head_shapes(approach: Any) -> list[tuple[int, ...]]:
    """Shapes of one member's head weights (after the dense layers' in ``get_weights()``)."""
    return [shape for layer in approach.head for shape in getattr(layer, "weight_shapes", ())]


Head = Callable[..., tf.Tensor]  # (z, knobs or None, *head weights) -> outputs


def output_head(approach: Any, knobs: Sequence[float | None]) -> tuple[Head, np.ndarray | None]:
    """The approach's output head on stacked pre-activations z (M, B, units), and each
    member's activation parameter (its knob, or the activation's own value) as float32, None
    when the head has none. The head is called as ``head(z, knobs, *head weights)``, ``knobs``
    (M,) the parameters of the members in the stack (broadcast over each member's outputs)."""
    act = approach.activation
    given = [k for k in knobs if k is not None]
    if act is None:
        weighted = [layer for layer in approach.head if hasattr(layer, "stacked")]
        if len(approach.head) > 1 or len(weighted) < len(approach.head):
            raise ValueError(
                f"an output head other than a rounding activation or one layer with a "
                f"stacked form cannot be vectorised. "
                f"Received: approach.head={[layer.name for layer in approach.head]}"
            )
        if given:
            raise ValueError(f"approach {approach.name!r} has no knob. Received: knobs={given}")
        if weighted:
            stacked = weighted[0].stacked
            return lambda z, _, *weights: stacked(z, *weights, add_bias=add_bias), None
        return lambda z, _: z, None
    if act.spec.numpy_backed:
        raise ValueError(
            f"a numpy-backed output activation cannot be vectorised; run the job on its own. "
            f"Received: activation={act.name!r}"
        )
    param, function = act.spec.param, act.spec.function
    if param is None:
        if given:
            raise ValueError(f"{act.name} takes no parameter. Received: knobs={given}")
        return lambda z, _: function(z), None
    values = [act.params[param] if k is None else act.spec.parameter.validate(k) for k in knobs]

    def head(z: tf.Tensor, member_knobs: tf.Tensor) -> tf.Tensor:
        per_output = tf.broadcast_to(tf.reshape(member_knobs, (-1, 1, 1)), tf.shape(z))
        return function(z, **{param: per_output})

    return head, np.asarray(values, dtype=np.float32)


def forward(
    lay: Layout,
    theta: tf.Tensor,
    x: tf.Tensor,
    hidden: Callable[[Any], Any],
    head: Head,
    knobs: tf.Tensor | None,
) -> tf.Tensor:
    """Outputs (M, B, units) of inputs x (M, B, n_features), or (1, B, n_features) shared by
    every member, for the members whose weights are the rows of ``theta``."""
    weights = lay.split(theta)
    h = x
    last = lay.dense // 2 - 1
    for layer in range(last + 1):
        h = add_bias(tf.matmul(h, weights[2 * layer]), weights[2 * layer + 1])
        h = head(h, knobs, *weights[lay.dense :]) if layer == last else hidden(h)
    return h
