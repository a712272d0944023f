"""Cutting a fixed table of rows into train/val/test (and the label tails into extrapolate).

Three cuts, each from one seeded permutation, so the same seed picks the same rows on any
machine (see :mod:`roundlab.data.sampling` for why the stream is exact):

- :func:`split_table`: the bundled tables (diabetes, randhie, anes96): a random cut by the
  fractions, the label-quantile tails as extrapolate.
- :func:`stratified_table`: a user's CSV file (each of its resamples): the same tails, then a
  cut stratified by label, so a rare label keeps its rows in train.
- :func:`carve_val`: a validation split out of given training rows.
"""

from __future__ import annotations

import math

import numpy as np

from roundlab.data.sampling import Arrays
from roundlab.data.schemas import require

STRATIFIED = "stratified"
RANDOM = "random"


def resample_rng(seed: int, resample: int) -> np.random.Generator:
    """The generator of resample ``r`` of a dataset with ``seed``: PCG64 seeded with the
    SeedSequence of ``(seed, r)`` (integer hashing, the same on every machine), so each resample
    is its own stream and resample 0 does not depend on how many there are."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, resample])))


def label_tails(y: np.ndarray, quantile: float) -> tuple[np.ndarray, np.ndarray]:
    """``(in_range, out_range)`` row indices: with ``k = floor(q * n)``, ``lo`` is the (k+1)-th
    smallest label and ``hi`` the (k+1)-th largest; rows with ``lo <= y <= hi`` are in range.
    Ties at ``lo``/``hi`` stay in range, so none is out when ``q = 0`` or the labels are
    constant."""
    ordered = np.sort(y, kind="stable")
    k = int(math.floor(quantile * len(y)))
    lo, hi = int(ordered[k]), int(ordered[len(y) - 1 - k])
    return np.flatnonzero((y >= lo) & (y <= hi)), np.flatnonzero((y < lo) | (y > hi))


def split_table(
    rng: np.random.Generator,
    x: np.ndarray,
    y: np.ndarray,
    val_fraction: float,
    test_fraction: float,
    extrapolate_quantile: float,
) -> dict[str, Arrays]:
    """Split a fixed table into train/val/test and, by label quantile, extrapolate.

    The rows out of :func:`label_tails` form the extrapolate split (absent when there are
    none), so its labels lie outside the range of every other split; the in-range rows are
    shuffled and cut into val, test and train: ``round(val_fraction · n)`` and
    ``round(test_fraction · n)`` rows, the rest train.
    """
    in_range, out_range = label_tails(y, extrapolate_quantile)
    order = in_range[rng.permutation(len(in_range))]
    return _take(x, y, _random_cut(order, val_fraction, test_fraction), out_range)


def stratified_table(
    rng: np.random.Generator,
    x: np.ndarray,
    y: np.ndarray,
    val_fraction: float,
    test_fraction: float,
    extrapolate_quantile: float,
) -> tuple[dict[str, Arrays], str]:
    """Split a fixed table like :func:`split_table`, stratified by label: ``(splits, method)``.

    The extrapolate split is the same label tails. Of the in-range rows, each label ``k`` with
    ``n_k`` rows gives ``t_k = min(n_k − 1, floor(test_fraction · n_k + 0.5))`` rows to test and
    ``v_k = min(n_k − 1 − t_k, floor(val_fraction · n_k + 0.5))`` to val, the first in one seeded
    permutation, so every split keeps the label mix and train keeps every label: a label too
    rare for its share (3 rows at 0.15: 0.45 rounds to 0) stays wholly in train, where the
    heads that predict only seen labels (classification, ordinal) can learn it. ``method`` is
    ``"stratified"``; when that leaves val or test empty (every label that rare), the cut is
    :func:`split_table`'s random one instead and ``method`` is ``"random"``.
    """
    in_range, out_range = label_tails(y, extrapolate_quantile)
    order = in_range[rng.permutation(len(in_range))]
    labels = y[order]
    split_of = np.zeros(len(order), dtype=np.int8)  # 0 train, 1 val, 2 test
    for label in np.unique(labels):
        at = np.flatnonzero(labels == label)
        n_test = min(len(at) - 1, int(math.floor(test_fraction * len(at) + 0.5)))
        n_val = min(len(at) - 1 - n_test, int(math.floor(val_fraction * len(at) + 0.5)))
        split_of[at[:n_val]] = 1
        split_of[at[n_val : n_val + n_test]] = 2
    rows = {name: order[split_of == i] for i, name in enumerate(("train", "val", "test"))}
    if len(rows["val"]) and len(rows["test"]):
        return _take(x, y, rows, out_range), STRATIFIED
    return _take(x, y, _random_cut(order, val_fraction, test_fraction), out_range), RANDOM


def _random_cut(
    order: np.ndarray, val_fraction: float, test_fraction: float
) -> dict[str, np.ndarray]:
    """The first ``round(val_fraction · n)`` rows of ``order`` to val, the next
    ``round(test_fraction · n)`` to test, the rest to train; each must get one."""
    n_val = int(round(val_fraction * len(order)))
    n_test = int(round(test_fraction * len(order)))
    require(
        n_val >= 1 and n_test >= 1 and len(order) - n_val - n_test >= 1,
        f"each of train, val and test needs at least one of the {len(order)} in-range rows",
        val_fraction=val_fraction,
        test_fraction=test_fraction,
        rows=len(order),
    )
    return {
        "train": order[n_val + n_test :],
        "val": order[:n_val],
        "test": order[n_val : n_val + n_test],
    }


def _take(
    x: np.ndarray, y: np.ndarray, rows: dict[str, np.ndarray], out_range: np.ndarray
) -> dict[str, Arrays]:
    if len(out_range):
        rows = {**rows, "extrapolate": out_range}
    return {name: (x[at], y[at]) for name, at in rows.items()}


def carve_val(
    rng: np.random.Generator, y: np.ndarray, fraction: float
) -> tuple[np.ndarray, np.ndarray, str]:
    """Cut a validation split from the rows of a training table: ``(train_rows, val_rows,
    method)``, both row lists in table order.

    ``method`` is ``"stratified"`` when every label has at least 2 rows: each label ``k`` with
    ``n_k`` rows gives ``min(n_k − 1, floor(fraction · n_k + 0.5))`` of them to val, so train
    keeps every label and val keeps the label mix. Otherwise ``"random"``:
    ``round(fraction · n)`` rows regardless of label. Either way the rows are the first in one
    seeded permutation, so the same seed picks the same rows.
    """
    order = rng.permutation(len(y))
    chosen = np.zeros(len(y), dtype=bool)
    labels, counts = np.unique(y, return_counts=True)
    method = STRATIFIED if len(y) and counts.min() >= 2 else RANDOM
    if method == STRATIFIED:
        for label, count in zip(labels, counts, strict=True):
            take = min(int(count) - 1, int(math.floor(fraction * int(count) + 0.5)))
            chosen[order[y[order] == label][:take]] = True
    else:
        chosen[order[: int(round(fraction * len(y)))]] = True
    n_val = int(chosen.sum())
    require(
        1 <= n_val < len(y),
        f"carving val from the training rows ({method}) must leave at least one row in each",
        val_fraction=fraction,
        rows=len(y),
        val_rows=n_val,
    )
    return np.flatnonzero(~chosen), np.flatnonzero(chosen), method
