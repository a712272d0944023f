"""The process state a run starts from: a fresh Keras session, its seed, TensorFlow op
determinism on or off, and its device. Set on every run, because the jobs of a sweep share one
process with the basic and vectorised launchers."""

from __future__ import annotations

import functools
import gc

import keras
import tensorflow as tf
from tensorflow.python.framework.config import disable_op_determinism

from roundlab import device


def start(seed: int, deterministic: bool, mixed_precision: bool) -> device.Device:
    _freeze_what_was_imported()
    keras.backend.clear_session()  # free the previous job's graphs
    keras.utils.set_random_seed(seed)
    if deterministic:
        tf.config.experimental.enable_op_determinism()
    else:
        disable_op_determinism()
    return device.select(mixed_precision)


@functools.cache
def _freeze_what_was_imported() -> None:
    """Move every object alive at a process's first run (TensorFlow's, Keras', MLflow's
    modules: about 600,000) out of the garbage collector's reach, once.

    ``clear_session`` collects garbage before each run, so the previous one's graphs are freed
    now rather than whenever Python gets to them; a collection walks every tracked object, and
    with those modules that took 0.3 s, a long-lived sweep worker's largest cost per stacked
    group after training itself. Frozen objects are still freed when their last reference goes;
    only a cycle among them would never be, and what is alive before the first run is the
    process's own.
    """
    gc.collect()
    gc.freeze()
