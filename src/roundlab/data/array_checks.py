"""Checks of one stored split's array files against what meta.json recorded: readable ``.npy``,
shapes and dtypes, finite features, integral labels, row counts, label ranges, SHA-256."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import numpy as np

from roundlab.data.dataset import Split


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_array(file: Path, hint: str) -> tuple[np.ndarray, bytes]:
    if not file.is_file():
        raise FileNotFoundError(f"{file} is missing. {hint}")
    raw = file.read_bytes()
    try:
        array = np.load(io.BytesIO(raw), allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise ValueError(
            f"{file} must be a readable .npy array. Received: {error}. {hint}"
        ) from None
    return array, raw


def load_split(directory: Path, entry: dict[str, Any], n_features: int, hint: str) -> Split:
    x_file, y_file = directory / entry["x"]["file"], directory / entry["y"]["file"]
    x, x_raw = read_array(x_file, hint)
    y, y_raw = read_array(y_file, hint)
    if x.ndim != 2 or x.shape[1] != n_features or x.dtype.kind not in "fiu":
        raise ValueError(
            f"{x_file} must hold real features of shape (n, {n_features}). "
            f"Received: shape={x.shape}, dtype={x.dtype}. {hint}"
        )
    bad = np.flatnonzero(~np.isfinite(x).all(axis=1))
    if len(bad):
        raise ValueError(
            f"the features in {x_file} must be finite. Received: row {bad[0]} = "
            f"{x[bad[0]][~np.isfinite(x[bad[0]])][:3].tolist()}. {hint}"
        )
    if y.ndim != 1 or y.dtype.kind not in "fiu":
        raise ValueError(
            f"{y_file} must hold a 1-D array of integer labels. "
            f"Received: shape={y.shape}, dtype={y.dtype}. {hint}"
        )
    if y.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(y) | (y != np.round(y)))
        if len(bad):
            raise ValueError(
                f"the labels in {y_file} must be integers. "
                f"Received: {y[bad[0]].item()!r} at row {bad[0]}. {hint}"
            )
    if not len(x) == len(y) == entry["n"]:
        raise ValueError(
            f"{x_file.name} and {y_file.name} must both hold the n={entry['n']} rows recorded in "
            f"meta.json. Received: {len(x)} and {len(y)} rows. {hint}"
        )
    split = Split(x.astype(np.float32), y.astype(np.int64))
    if len(split) and list(split.label_range) != entry["label_range"]:
        raise ValueError(
            f"the labels in {y_file} must span the label_range {entry['label_range']} recorded "
            f"in meta.json. Received: {list(split.label_range)}. {hint}"
        )
    for file, raw, part in ((x_file, x_raw, "x"), (y_file, y_raw, "y")):
        if sha256(raw) != entry[part]["sha256"]:
            raise ValueError(
                f"{file} must match the SHA-256 recorded in meta.json: it changed after it was "
                f"generated. Received: sha256={sha256(raw)}, expected {entry[part]['sha256']}. "
                f"{hint}"
            )
    return split
