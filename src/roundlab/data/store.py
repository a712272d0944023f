"""The on-disk format of ``data/<name>/`` and its validating loader.

One directory per dataset::

    data/<name>/meta.json                 description (below), JSON with sorted keys
    data/<name>/<split>_x.npy             float32 features, shape (n, n_features), little-endian
    data/<name>/<split>_y.npy             int64 labels, shape (n,), little-endian

for split in train, val, test and, when the generator makes one, extrapolate. Plain ``.npy``
(format 1.0) rather than ``.npz``: a zip archive stores file timestamps, which would change the
bytes (and DVC's hash) of every regeneration. ``meta.json`` holds ``format_version``, ``name``,
``generator``, ``seed``, ``params`` (the whole dataset config), ``n_features``,
``feature_names``, ``standardization`` (train mean/std, or null), ``sources`` (SHA-256 of
input files, e.g. a CSV), ``oracle`` (per split the best achievable ``exact_match`` and
``mae``, see :mod:`roundlab.data.oracle`; null for real data), ``provenance`` (where
data read from files came from: source, licence, citation, how the splits were cut; null for
synthetic data) and per split ``n``,
``label_range`` [min, max] and, for ``x`` and ``y``, the file name and the SHA-256 of its bytes.
Nothing in it depends on the time or machine.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from roundlab import paths
from roundlab.data.dataset import REQUIRED_SPLITS, SPLITS, Dataset, Split

# 2 added the oracle, 3 the provenance.
FORMAT_VERSION = 3
META = "meta.json"


def regenerate_hint(name: str) -> str:
    return f"Regenerate it with `dvc repro` (or `python -m roundlab.data {name}`)."


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, version=(1, 0), allow_pickle=False)
    return buffer.getvalue()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def assemble(
    *,
    name: str,
    generator: str,
    params: dict[str, Any],
    splits: dict[str, tuple[np.ndarray, np.ndarray]],
    feature_names: list[str],
    standardization: dict[str, list[float]] | None,
    sources: dict[str, str],
    oracle: dict[str, dict[str, float]] | None,
    provenance: dict[str, Any] | None = None,
) -> Dataset:
    """A :class:`Dataset` with its ``meta`` filled in, arrays in the on-disk dtypes."""
    arrays = {
        split: Split(np.ascontiguousarray(x, dtype="<f4"), np.ascontiguousarray(y, dtype="<i8"))
        for split, (x, y) in splits.items()
    }
    described = {}
    for split in SPLITS:
        if split not in arrays:
            continue
        part = arrays[split]
        described[split] = {
            "n": len(part),
            "label_range": list(part.label_range),
            "x": {"file": f"{split}_x.npy", "sha256": sha256(npy_bytes(part.x))},
            "y": {"file": f"{split}_y.npy", "sha256": sha256(npy_bytes(part.y))},
        }
    meta = {
        "format_version": FORMAT_VERSION,
        "name": name,
        "generator": generator,
        "seed": params["seed"],
        "params": params,
        "n_features": int(arrays["train"].x.shape[1]),
        "feature_names": feature_names,
        "standardization": standardization,
        "sources": sources,
        "oracle": oracle,
        "provenance": provenance,
        "splits": described,
    }
    return Dataset(name=name, meta=meta, splits={s: arrays[s] for s in described})


def save(dataset: Dataset, directory: Path) -> Path:
    """Write ``dataset`` to ``directory`` atomically: readers see the old or the new one whole.

    Files are written into a temporary sibling directory, flushed to disk, that then replaces
    ``directory``: the whole directory is the unit, since meta.json records its arrays' hashes.
    A failure (a full disk, no permission) leaves the old directory as it was, removes the
    temporary one and raises :class:`roundlab.errors.WriteFailed` naming ``directory``.
    """
    directory = Path(directory)
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    except OSError as err:
        raise paths.write_failed(directory, err) from None
    retired = staging.with_name(staging.name + ".old")
    try:
        os.chmod(staging, 0o755)  # mkdtemp makes it private; data/ is meant to be shared
        for split, entry in dataset.meta["splits"].items():
            part = dataset.splits[split]
            _write(staging / entry["x"]["file"], npy_bytes(part.x))
            _write(staging / entry["y"]["file"], npy_bytes(part.y))
        meta = json.dumps(dataset.meta, indent=2, sort_keys=True) + "\n"
        _write(staging / META, meta.encode())
        if directory.exists():
            directory.rename(retired)
        try:
            staging.rename(directory)
        except OSError:
            if retired.exists():  # put the old data back
                retired.rename(directory)
            raise
    except OSError as err:
        raise paths.write_failed(directory, err) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # gone already when the rename succeeded
    shutil.rmtree(retired, ignore_errors=True)
    return directory


def _write(path: Path, data: bytes) -> None:
    with open(path, "xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def locate(name_or_path: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None) -> Path:
    """A bare name means ``<data_dir>/<name>`` (default: the project's data/); else a path."""
    path = Path(name_or_path)
    if isinstance(name_or_path, Path) or len(path.parts) > 1:
        return path
    return Path(data_dir or paths.data_dir()) / path


def read_meta(directory: Path) -> dict[str, Any] | None:
    """The parsed meta.json of ``directory``; None when there is none; ValueError if corrupt."""
    file = Path(directory) / META
    if not file.is_file():
        return None
    try:
        meta = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(
            f"{file} must be valid JSON. Received: {error}. {regenerate_hint(Path(directory).name)}"
        ) from None
    if not isinstance(meta, dict):
        raise ValueError(f"{file} must hold a JSON object. {regenerate_hint(Path(directory).name)}")
    return meta


def load(
    name_or_path: str | os.PathLike[str], data_dir: str | os.PathLike[str] | None = None
) -> Dataset:
    """Read ``data/<name>/`` (or a dataset directory) and validate it.

    Checks, each failing with the file, the offending value and how to regenerate: meta.json
    present and of this format version; every array file present and a readable ``.npy``;
    features 2-D, finite, ``n_features`` wide; labels 1-D integers (a float array is accepted
    only if every value is integral: 2.5 is refused); row counts and label ranges as recorded;
    and the SHA-256 of every file as recorded.
    """
    directory = locate(name_or_path, data_dir)
    hint = regenerate_hint(directory.name)
    meta = read_meta(directory)
    if meta is None:
        raise FileNotFoundError(f"no dataset at {directory}: {directory / META} is missing. {hint}")
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{directory / META} must have format_version {FORMAT_VERSION}. "
            f"Received: format_version={meta.get('format_version')!r}. {hint}"
        )
    recorded = meta.get("splits", {})
    absent = [split for split in REQUIRED_SPLITS if split not in recorded]
    if absent:
        raise ValueError(f"{directory / META} must describe the splits {absent}. {hint}")
    splits = {
        split: _load_split(directory, recorded[split], int(meta["n_features"]), hint)
        for split in SPLITS
        if split in recorded
    }
    return Dataset(name=meta["name"], meta=meta, splits=splits)


def _read_array(file: Path, hint: str) -> tuple[np.ndarray, bytes]:
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


def _load_split(directory: Path, entry: dict[str, Any], n_features: int, hint: str) -> Split:
    x_file, y_file = directory / entry["x"]["file"], directory / entry["y"]["file"]
    x, x_raw = _read_array(x_file, hint)
    y, y_raw = _read_array(y_file, hint)
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
