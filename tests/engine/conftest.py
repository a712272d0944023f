"""Fixtures of the engine tests: a small data set and op determinism."""

from __future__ import annotations

import os

import pytest

from .support import labelled

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


@pytest.fixture(scope="session")
def data():
    """(x_train, y_train, x_val, y_val): 90 training examples (a partial last batch at batch
    size 32) and 40 validation ones."""
    return (*labelled(90, 0), *labelled(40, 1))


@pytest.fixture(autouse=True)
def deterministic_ops():
    """Op determinism for the bitwise comparisons, switched off again afterwards."""
    import tensorflow as tf
    from tensorflow.python.framework.config import disable_op_determinism

    tf.config.experimental.enable_op_determinism()
    yield
    disable_op_determinism()
