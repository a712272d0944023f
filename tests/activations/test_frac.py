"""frac(x) = x - floor(x) replaces the Q&A code's tf.math.floormod(x, 1) without changing a bit."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from roundlab.activations._ops import frac

from .support import GRID


def _awkward_inputs(dtype):
    info = np.finfo(dtype)
    rng = np.random.default_rng(0)
    special = [0.0, -0.0, -1e-9, -1e-30, info.tiny, -info.tiny, -info.eps, 1 - info.epsneg]
    special += [-(1 - info.epsneg), 2.0**23 + 0.5, -(2.0**23) - 0.5, 2.0**52, 1e30, -1e30]
    return np.concatenate(
        [
            GRID,
            special,
            rng.uniform(-10, 10, 100_000),
            rng.uniform(-1e6, 1e6, 10_000),
            -np.exp(rng.uniform(-80, 0, 10_000)),  # tiny negatives round up to 1 in floormod
        ]
    ).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_frac_equals_floormod_exactly(dtype):
    x = tf.constant(_awkward_inputs(dtype))
    # equal as numbers; floormod(-0.0, 1) is -0.0 where frac gives +0.0
    np.testing.assert_array_equal(frac(x).numpy(), tf.math.floormod(x, 1.0).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_frac_equals_floormod_exactly_under_xla(dtype):
    x = tf.constant(_awkward_inputs(dtype))
    compiled = tf.function(lambda v: (frac(v), tf.math.floormod(v, 1.0)), jit_compile=True)
    ours, floormod = compiled(x)
    np.testing.assert_array_equal(ours.numpy(), floormod.numpy())
