"""classification: one logit per integer of the training label range, softmax cross-entropy.

Head: ``K = hi - lo + 1`` logits over the training label range ``[lo, hi]``. Loss: softmax
cross-entropy. Readout: ``argmax + lo``. By construction it can only predict labels in
``[lo, hi]``; a validation label outside that range is clipped to the nearest class for the loss
only (the metrics compare against the true label). A training range of more than
``approach.max_classes`` labels (default 1000) is refused (:mod:`roundlab.approaches.label_range`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from keras import ops

from roundlab.approaches.head import Approach
from roundlab.approaches.label_range import check_label_range
from roundlab.approaches.settings import Settings


def build(settings: Settings, y_train: np.ndarray) -> Approach:
    """Refuses, before building anything, a label range wider than ``approach.max_classes``."""
    check_label_range("classification", y_train, settings.max_classes)
    lo, hi = int(np.min(y_train)), int(np.max(y_train))
    k = hi - lo + 1

    def loss(y_true: Any, logits: Any) -> Any:
        labels = ops.clip(ops.cast(ops.reshape(y_true, (-1,)), "int32") - lo, 0, k - 1)
        return ops.sparse_categorical_crossentropy(labels, logits, from_logits=True)

    return Approach(
        name="classification",
        units=k,
        bias=0.0,
        loss=loss,
        decode_tf=lambda out: ops.cast(ops.argmax(out, axis=-1) + lo, "float32"),
        decode=lambda out: np.argmax(out, axis=-1).astype(np.int64) + lo,
    )
