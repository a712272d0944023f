"""The process state a run starts from: a fresh Keras session, its seed, TensorFlow op
determinism on or off, and its device. Set on every run, because the jobs of a sweep share one
process with the basic and vectorised launchers."""

from __future__ import annotations

import keras
import tensorflow as tf
from tensorflow.python.framework.config import disable_op_determinism

from roundlab import device


def start(seed: int, deterministic: bool, mixed_precision: bool) -> device.Device:
    keras.backend.clear_session()  # free the previous job's graphs
    keras.utils.set_random_seed(seed)
    if deterministic:
        tf.config.experimental.enable_op_determinism()
    else:
        disable_op_determinism()
    return device.select(mixed_precision)
