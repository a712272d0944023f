"""The refusal of a training label range too wide for a head with one output per label.

An approach that predicts only labels of the training range (classification, one softmax unit
per integer ``lo..hi``; any ordinal head) needs ``hi - lo + 1`` output units. A range wider than
``approach.max_classes`` (default :data:`DEFAULT_MAX_CLASSES`) is refused before anything is
built: labels spanning 0..5,000,000 would build a 5,000,001-unit softmax, gigabytes for a dozen
rows. Such an approach's ``build`` calls :func:`check_label_range` first.
"""

from __future__ import annotations

import numpy as np

from roundlab.errors import ConfigError

DEFAULT_MAX_CLASSES = 1000


def check_label_range(approach: str, y_train: np.ndarray, max_classes: int) -> None:
    """Refuse a training label range wider than ``max_classes`` for ``approach``."""
    lo, hi = int(np.min(y_train)), int(np.max(y_train))
    classes = hi - lo + 1
    if classes > max_classes:
        raise ConfigError(
            f"approach={approach} needs one output per label of the training range, at most "
            f"approach.max_classes={max_classes}; the training labels span {lo}..{hi} "
            f"({classes:,} classes). Use approach=regression or approach=rounding (they predict "
            f"any integer with one unit), or raise approach.max_classes. "
            f"Received: label range={lo}..{hi}"
        )
