"""M members of one MLP shape stacked on a leading axis: their weights and forward pass.

Dense layer l of member m has kernel W_l[m] (in, out) and bias b_l[m] (out,), stored stacked
as W_l (M, in, out) and b_l (M, out). Member inputs h (M, B, in) map to
``h @ W_l + b_l[:, None, :]``, one batched matmul per layer, in which member m's numbers never
meet member n's. The hidden activation is applied elementwise; the output head applies the
approach's rounding activation ``f(z, <param>=k)`` with a per-member parameter tensor k of
shape (M, 1, 1), so members may differ in alpha, steepness, width or sigma; or a head layer
with weights of its own (CORAL's biases, roundlab.approaches.layers.OffsetLogits), stacked
after the dense layers' and passed to its ``stacked(z, *weights)``.

Only what can be computed member by member with TensorFlow ops can be stacked: dropout and
numpy-backed activations (``Spec.numpy_backed``) are refused with a ValueError, and such jobs
run one at a time through the single-run path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import keras
import numpy as np
import tensorflow as tf

from roundlab import activations
from roundlab.engine.members import Member


def layer_shapes(n_features: int, hidden_sizes: Sequence[int], units: int) -> list[tuple[int, ...]]:
    """Shapes of one member's weights in ``build_mlp(...).model.get_weights()`` order."""
    widths = [n_features, *hidden_sizes, units]
    shapes: list[tuple[int, ...]] = []
    for fan_in, fan_out in zip(widths[:-1], widths[1:], strict=True):
        shapes += [(fan_in, fan_out), (fan_out,)]
    return shapes


def stack_weights(members: Sequence[Member], shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    """Each weight of every member stacked on a new leading axis, as float32."""
    for i, member in enumerate(members):
        got = [tuple(np.shape(w)) for w in member.initial_weights]
        if got != shapes:
            raise ValueError(
                f"every member's initial_weights must have the shapes of build_mlp's weights "
                f"{shapes}. Received: members[{i}] weight shapes={got}"
            )
    return [
        np.stack([np.asarray(m.initial_weights[i], dtype=np.float32) for m in members])
        for i in range(len(shapes))
    ]


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


def output_head(approach: Any, knobs: Sequence[float | None]) -> Callable[..., Any]:
    """The approach's output head on stacked pre-activations (M, B, units), with each member's
    knob as the activation's parameter, or the head layer's stacked weights as arguments."""
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
        return weighted[0].stacked if weighted else tf.identity
    if act.spec.numpy_backed:
        raise ValueError(
            f"a numpy-backed output activation cannot be vectorised; run the job on its own. "
            f"Received: activation={act.name!r}"
        )
    param = act.spec.param
    if param is None:
        if given:
            raise ValueError(f"{act.name} takes no parameter. Received: knobs={given}")
        return act.spec.function
    values = [act.params[param] if k is None else act.spec.parameter.validate(k) for k in knobs]
    per_member = tf.constant(np.reshape(values, (-1, 1, 1)), dtype=tf.float32)
    return lambda z: act.spec.function(z, **{param: per_member})


class StackedMLP:
    """The stacked weights as Keras variables (what the optimizer updates), a second set
    holding each member's kept weights (best or last good epoch), and the forward pass. The
    last ``head_weights`` of ``stacked`` belong to the output head, the others to the dense
    layers (kernel, bias, kernel, bias, ...)."""

    def __init__(
        self,
        stacked: list[np.ndarray],
        hidden: Callable[[Any], Any],
        head: Callable[..., Any],
        head_weights: int = 0,
    ):
        self.variables = [keras.Variable(w, name=f"stacked_{i}") for i, w in enumerate(stacked)]
        self.kept = [tf.Variable(w, trainable=False) for w in stacked]
        self.hidden = hidden
        self.head = head
        self.dense = len(stacked) - head_weights

    def __call__(self, x: tf.Tensor) -> tf.Tensor:
        """Outputs (M, B, units) of inputs (M, B, n_features), or (1, B, n_features) shared by
        every member."""
        h = x
        last = self.dense // 2 - 1
        for layer in range(last + 1):
            kernel, bias = self.variables[2 * layer], self.variables[2 * layer + 1]
            h = tf.matmul(h, kernel) + tf.expand_dims(bias, 1)
            h = self.head(h, *self.variables[self.dense :]) if layer == last else self.hidden(h)
        return h

    def keep(self, mask: np.ndarray) -> None:
        """Copy the current weights of the members where ``mask`` (M,) is true into ``kept``."""
        self._keep(tf.constant(mask))

    @tf.function
    def _keep(self, mask: tf.Tensor) -> None:
        for live, kept in zip(self.variables, self.kept, strict=True):
            where = tf.reshape(mask, [-1] + [1] * (len(live.shape) - 1))
            kept.assign(tf.where(where, live, kept))

    def kept_weights(self) -> list[np.ndarray]:
        """The kept weights, stacked: ``[w[m] for w in kept_weights()]`` is member m's."""
        return [kept.numpy() for kept in self.kept]
