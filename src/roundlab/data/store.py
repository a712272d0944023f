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
synthetic data), ``resample`` and ``resamples`` (this split set's number and how many the
dataset has, :mod:`roundlab.data.resamples`) and per split ``n``,
``label_range`` [min, max] and, for ``x`` and ``y``, the file name and the SHA-256 of its bytes.
Nothing in it depends on the time or machine.

A dataset with R > 1 resamples holds each in its own directory, a full split set as above::

    data/<name>/meta.json                 format_version, name, generator, seed, params,
                                          sources, resamples (R) and resample_dirs: per
                                          resample its directory and the SHA-256 of its meta.json
    data/<name>/resample=<r>/meta.json    the meta.json of resample r (resample: r)
    data/<name>/resample=<r>/<split>_x.npy, <split>_y.npy
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from roundlab import paths
from roundlab.data.array_checks import load_split, sha256
from roundlab.data.dataset import REQUIRED_SPLITS, SPLITS, Dataset, Split

# 2 added the oracle, 3 the provenance, 4 the resamples.
FORMAT_VERSION = 4
META = "meta.json"


def resample_dir(resample: int) -> str:
    return f"resample={resample}"


def regenerate_hint(name: str) -> str:
    return f"Regenerate it with `dvc repro` (or `python -m roundlab.data {name}`)."


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, version=(1, 0), allow_pickle=False)
    return buffer.getvalue()


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
    resample: int = 0,
    resamples: int = 1,
) -> Dataset:
    """A :class:`Dataset` (resample ``resample`` of ``resamples``) with its ``meta`` filled in,
    arrays in the on-disk dtypes."""
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
        "resample": resample,
        "resamples": resamples,
        "splits": described,
    }
    return Dataset(name=name, meta=meta, splits={s: arrays[s] for s in described})


def save(datasets: Dataset | Sequence[Dataset], directory: Path) -> Path:
    """Write a dataset, or every resample of one (0..R-1, in order), to ``directory``
    atomically: readers see the old or the new one whole.

    Files are written into a temporary sibling directory, flushed to disk, that then replaces
    ``directory``: the whole directory is the unit, since meta.json records its arrays' hashes
    (and, with resamples, the hashes of each resample's meta.json).
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
        _write_all([datasets] if isinstance(datasets, Dataset) else list(datasets), staging)
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


def _write_all(datasets: list[Dataset], staging: Path) -> None:
    """One split set in ``staging``, or each resample in its directory below it and the
    top meta.json naming them."""
    total = len(datasets)
    for r, dataset in enumerate(datasets):
        if (dataset.meta["resample"], dataset.meta["resamples"]) != (r, total):
            raise ValueError(
                f"save takes the resamples of one dataset, 0..R-1 in order. Received: "
                f"resample {dataset.meta['resample']} of {dataset.meta['resamples']} at {r}"
            )
    if total == 1:
        _write_set(datasets[0], staging)
        return
    first = datasets[0].meta
    entries = []
    for r, dataset in enumerate(datasets):
        (staging / resample_dir(r)).mkdir()
        meta = _write_set(dataset, staging / resample_dir(r))
        entries.append({"dir": resample_dir(r), "meta_sha256": sha256(meta)})
    top = {key: first[key] for key in ("name", "generator", "seed", "params", "sources")}
    top.update(format_version=FORMAT_VERSION, resamples=total, resample_dirs=entries)
    _write(staging / META, (json.dumps(top, indent=2, sort_keys=True) + "\n").encode())


def _write_set(dataset: Dataset, directory: Path) -> bytes:
    """The split set's arrays and meta.json in ``directory``; returns the meta.json bytes."""
    for split, entry in dataset.meta["splits"].items():
        part = dataset.splits[split]
        _write(directory / entry["x"]["file"], npy_bytes(part.x))
        _write(directory / entry["y"]["file"], npy_bytes(part.y))
    meta = (json.dumps(dataset.meta, indent=2, sort_keys=True) + "\n").encode()
    _write(directory / META, meta)
    return meta


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
    name_or_path: str | os.PathLike[str],
    data_dir: str | os.PathLike[str] | None = None,
    resample: int | None = None,
) -> Dataset:
    """Read ``data/<name>/`` (or a dataset directory), resample ``resample`` (None: 0) of a
    dataset with resamples, and validate it.

    Checks, each failing with the file, the offending value and how to regenerate: meta.json
    present and of this format version; the resample one the dataset has, its meta.json the
    one the top meta.json recorded; every array file present and a readable ``.npy``;
    features 2-D, finite, ``n_features`` wide; labels 1-D integers (a float array is accepted
    only if every value is integral: 2.5 is refused); row counts and label ranges as recorded;
    and the SHA-256 of every file as recorded.
    """
    directory = locate(name_or_path, data_dir)
    hint = regenerate_hint(directory.name)
    meta = read_meta(directory)
    if meta is None:
        raise FileNotFoundError(f"no dataset at {directory}: {directory / META} is missing. {hint}")
    _check_version(directory, meta, hint)
    where, meta = set_meta(directory, meta, resample or 0, hint)
    recorded = meta.get("splits", {})
    absent = [split for split in REQUIRED_SPLITS if split not in recorded]
    if absent:
        raise ValueError(f"{where / META} must describe the splits {absent}. {hint}")
    splits = {
        split: load_split(where, recorded[split], int(meta["n_features"]), hint)
        for split in SPLITS
        if split in recorded
    }
    return Dataset(name=meta["name"], meta=meta, splits=splits)


def set_meta(
    directory: Path, meta: dict[str, Any], resample: int, hint: str
) -> tuple[Path, dict[str, Any]]:
    """``(directory, meta)`` of the split set of ``resample``: the dataset's own for one
    without resamples, else its resample's directory and meta.json, checked against the
    SHA-256 the top meta.json recorded."""
    total = int(meta.get("resamples", 1))
    if not 0 <= resample < total:
        raise ValueError(
            f"resample must name one of the {total} resamples of {directory} (0..{total - 1}). "
            f"Received: resample={resample}"
        )
    if total == 1:
        return directory, meta
    entry = meta["resample_dirs"][resample]
    where = directory / entry["dir"]
    file = where / META
    if not file.is_file():
        raise FileNotFoundError(f"{file} is missing. {hint}")
    raw = file.read_bytes()
    if sha256(raw) != entry["meta_sha256"]:
        raise ValueError(
            f"{file} must match the SHA-256 recorded in {directory / META}: it changed after it "
            f"was generated. Received: sha256={sha256(raw)}. {hint}"
        )
    inner = read_meta(where)
    _check_version(where, inner, hint)
    return where, inner


def _check_version(directory: Path, meta: dict[str, Any], hint: str) -> None:
    if meta.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{directory / META} must have format_version {FORMAT_VERSION}. "
            f"Received: format_version={meta.get('format_version')!r}. {hint}"
        )
