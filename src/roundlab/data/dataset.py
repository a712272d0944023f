"""In-memory form of a dataset: named splits of float32 features and int64 labels."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

SPLITS = ("train", "val", "test", "extrapolate")
REQUIRED_SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class Split:
    """One split: ``x`` float32 of shape (n, d), ``y`` int64 of shape (n,)."""

    x: np.ndarray
    y: np.ndarray

    def __len__(self) -> int:
        return len(self.y)

    @property
    def label_range(self) -> tuple[int, int]:
        """Smallest and largest label, both inclusive."""
        if len(self.y) == 0:
            raise ValueError("an empty split has no label range. Received: n=0")
        return int(self.y.min()), int(self.y.max())


@dataclass(frozen=True)
class Dataset:
    """A generated or loaded dataset.

    ``splits`` has the keys train, val, test and, where the generator can make one,
    extrapolate (labels outside the training label range). ``meta`` is the content of
    ``meta.json`` (see :mod:`roundlab.data.store`).
    """

    name: str
    meta: dict[str, Any]
    splits: dict[str, Split] = field(repr=False)

    @property
    def train(self) -> Split:
        return self.splits["train"]

    @property
    def val(self) -> Split:
        return self.splits["val"]

    @property
    def test(self) -> Split:
        return self.splits["test"]

    @property
    def extrapolate(self) -> Split | None:
        return self.splits.get("extrapolate")

    @property
    def oracle(self) -> dict[str, dict[str, float]] | None:
        """Per split, the best achievable ``exact_match`` and ``mae`` (the Bayes predictor of
        the generator's model, :mod:`roundlab.data.oracle`); None for real data."""
        return self.meta.get("oracle")

    @property
    def n_features(self) -> int:
        return int(self.train.x.shape[1])

    def labels(self) -> dict[str, list[int]]:
        """Each split's distinct labels, sorted: what a run records (``RunResult.labels``) so
        that the report can state the label range per split and flag a test label that never
        occurs in training."""
        return {name: np.unique(part.y).tolist() for name, part in self.splits.items()}

    def label_range(self, split: str = "train") -> tuple[int, int]:
        """Smallest and largest label of ``split`` (inclusive)."""
        if split not in self.splits:
            raise ValueError(
                f"split must be one of {sorted(self.splits)}. Received: split={split!r}"
            )
        return self.splits[split].label_range


_warned_constant: set[str] = set()


def warn_if_constant(name: str, y_train: np.ndarray) -> None:
    """Warn once per dataset and process when every training label is the same value: every
    approach can then only learn the constant, and equals the baseline."""
    values = np.unique(y_train)
    if len(values) != 1 or name in _warned_constant:
        return
    _warned_constant.add(name)
    log.warning(
        "dataset %s: every training label is %s; every approach can only learn the constant "
        "and equals the baseline",
        name,
        values[0].item(),
    )
