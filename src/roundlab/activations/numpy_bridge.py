"""The custom-activation Q&A's recipe in TensorFlow 2: a numpy function and its numpy derivative
as an op (the Q&A is cited in :mod:`roundlab.activations.catalogue`).

The Q&A wrapped ``tf.py_func`` and overrode its gradient with ``RegisterGradient`` +
``gradient_override_map``; TensorFlow 2 does the same with ``tf.numpy_function`` inside
``tf.custom_gradient``. The price: the numpy code runs on the host under the GIL, cannot be
XLA-compiled (Keras layers using it set ``supports_jit = False``), cannot run on a GPU, and is
not saved inside a SavedModel (a ``.keras`` file stores only the layer's config, so it is fine).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import tensorflow as tf

from roundlab.activations._ops import as_float_tensor

NumpyFunction = Callable[[np.ndarray], np.ndarray]


def numpy_activation(
    fn: NumpyFunction, grad_fn: NumpyFunction, name: str | None = None
) -> Callable[[tf.Tensor], tf.Tensor]:
    """Turn ``fn`` and its derivative ``grad_fn`` (both elementwise, numpy in, numpy out) into a
    TensorFlow activation whose gradient is ``upstream * grad_fn(x)``.

    The result works eagerly, in ``tf.function`` (not with ``jit_compile=True``) and in Keras
    models, for float32 and float64 inputs of any shape, unknown batch dimensions included: the
    output keeps the input's dtype and static shape. ``name`` (default: ``fn.__name__``) names
    the ops in the graph.
    """
    op_name = re.sub(r"[^A-Za-z0-9_.]", "_", name or getattr(fn, "__name__", "numpy_activation"))

    def on_host(function: NumpyFunction, x: tf.Tensor, suffix: str) -> tf.Tensor:
        def call(array: np.ndarray) -> np.ndarray:
            # numpy promotes to float64 wherever a float64 enters the math, and TensorFlow
            # insists on the declared dtype (the Q&A's float32 cast): return x's dtype.
            return np.asarray(function(array), dtype=array.dtype)

        y = tf.numpy_function(call, [x], x.dtype, stateful=False, name=f"{op_name}{suffix}")
        y.set_shape(x.shape)  # numpy_function's output has unknown shape
        return y

    def activation(x: tf.Tensor) -> tf.Tensor:
        x = as_float_tensor(x)

        # Called positionally below: tf.custom_gradient silently drops the custom gradient for
        # arguments given by keyword.
        @tf.custom_gradient
        def op(x: tf.Tensor):
            def grad(upstream: tf.Tensor) -> tf.Tensor:
                return upstream * on_host(grad_fn, x, "_grad")

            return on_host(fn, x, ""), grad

        return op(x)

    activation.__name__ = op_name
    return activation
