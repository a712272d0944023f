"""Where a run trains: a GPU when TensorFlow sees one, else the CPU; and its precision policy.

TensorFlow and Keras are imported by the functions that use them: this is a leaf every layer
may import, and the sweep's planner and the report import leaves without paying for them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Device:
    kind: str  # "GPU" or "CPU"
    names: tuple[str, ...]
    precision: str  # the Keras dtype policy: "float32" or "mixed_float16"

    def __str__(self) -> str:
        return self.kind if self.precision == "float32" else f"{self.kind} ({self.precision})"


def select(mixed_precision: bool = False) -> Device:
    """Pick the device and set Keras' global dtype policy for this run.

    On a GPU memory growth is switched on (several jobs can share one card) and
    ``mixed_precision`` selects ``mixed_float16``; the model keeps its output head in float32.
    On the CPU mixed precision would only be slower, so it is ignored with a warning. The policy
    is set on every call because sweep jobs share one process with the basic launcher.
    """
    import keras
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        # RuntimeError: already initialised by an earlier job in this process.
        with contextlib.suppress(RuntimeError):
            tf.config.experimental.set_memory_growth(gpu, True)
    precision = "float32"
    if mixed_precision and gpus:
        precision = "mixed_float16"
    elif mixed_precision:
        log.warning("trainer.mixed_precision=true ignored: no GPU, training in float32 on the CPU")
    keras.mixed_precision.set_global_policy(precision)
    if gpus:
        return Device("GPU", tuple(g.name for g in gpus), precision)
    return Device("CPU", tuple(d.name for d in tf.config.list_physical_devices("CPU")), precision)


@contextmanager
def float32_policy() -> Iterator[None]:
    """Layers built inside compute in float32 whatever the global policy (the output head)."""
    import keras

    saved = keras.config.dtype_policy()
    keras.config.set_dtype_policy("float32")
    try:
        yield
    finally:
        keras.config.set_dtype_policy(saved)
