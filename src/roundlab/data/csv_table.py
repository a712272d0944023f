"""Reading one CSV file into features and integer labels, refusing every bad value with the
file, the column, the row (and its line in the file) and the value.

The file needs a header row. A relative path is taken from the project root
(:func:`roundlab.paths.project_root`), so the same config works from any working directory.
"""

from __future__ import annotations

import csv
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from roundlab.data.dataset import SPLITS
from roundlab.data.schemas import require
from roundlab.paths import project_root

MISSING_TOKENS = {"", "na", "n/a", "nan", "null", "none"}
INT64_LIMIT = 2**63


@dataclass(frozen=True)
class CsvTable:
    """The rows of one file: ``x`` float32 (n, len(features)), ``y`` int64 (n,), and the split
    each row names (``split``, strings) when the file has a split column, else None."""

    features: list[str]
    x: np.ndarray
    y: np.ndarray
    split: np.ndarray | None


def resolve(path: str) -> Path:
    file = Path(path).expanduser()
    return file if file.is_absolute() else project_root() / file


def file_sha256(path: str) -> str | None:
    """SHA-256 of the file's bytes; None when there is no such file."""
    file = resolve(path)
    return hashlib.sha256(file.read_bytes()).hexdigest() if file.is_file() else None


def read_table(
    path: str,
    label: str,
    features: list[str] | None,
    split_column: str | None = None,
    min_rows: int = 1,
    key: str = "path",
) -> CsvTable:
    """The rows of the CSV file at ``path`` (as configured, under the config key ``key``);
    labels must be integers (``3`` or ``3.0``), features finite numbers, split names one of
    train, val, test, extrapolate.

    ``features`` None means every column but ``label`` and ``split_column``.
    """
    file = resolve(path)
    require(
        file.is_file(), f"{key} must name an existing CSV file", **{key: path, "file": str(file)}
    )
    with file.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle)
        header = _header(reader, file, path, label, split_column)
        features = features or [c for c in header if c not in (label, split_column)]
        absent = [column for column in features if column not in header]
        require(not absent, f"features must be columns of {file}: {header}", features=absent)
        require(bool(features), f"{file} needs at least one feature column", header=header)
        label_at = header.index(label)
        feature_at = [header.index(column) for column in features]
        split_at = header.index(split_column) if split_column else None
        labels, rows, splits = [], [], []
        for line, row in enumerate(reader, start=2):
            if not row:  # a blank line
                continue
            at = _At(file, len(labels) + 1, line)
            require(
                len(row) == len(header),
                f"every row of {file} must have {len(header)} fields like its header",
                row=at.row,
                line=line,
                fields=len(row),
            )
            labels.append(_label(row[label_at], label, at))
            rows.append([_feature(row[j], header[j], at) for j in feature_at])
            if split_at is not None:
                splits.append(_split(row[split_at], header[split_at], at))
    require(
        len(labels) >= min_rows, f"{file} must hold at least {min_rows} data rows", rows=len(labels)
    )
    x = np.asarray(rows, dtype=np.float64).reshape(len(rows), len(features)).astype(np.float32)
    require(
        bool(np.isfinite(x).all()),
        f"the features of {file} must stay finite as float32",
        largest=float(np.abs(np.asarray(rows)).max()),
    )
    split = np.asarray(splits, dtype=str) if split_at is not None else None
    return CsvTable(features, x, np.asarray(labels, dtype=np.int64), split)


def _header(reader, file: Path, path: str, label: str, split_column: str | None) -> list[str]:
    header = [column.strip() for column in next(reader, [])]
    require(bool(header), f"{file} must start with a header row naming its columns", path=path)
    require(
        len(set(header)) == len(header),
        f"the column names in the header of {file} must be distinct",
        header=header,
    )
    require(label in header, f"label must be one of the columns of {file}: {header}", label=label)
    if split_column:
        require(
            split_column in header,
            f"split_column must be one of the columns of {file}: {header}",
            split_column=split_column,
        )
    return header


@dataclass(frozen=True)
class _At:
    """Where a value sits: its file, its data row (1 for the first row under the header, blank
    lines not counted: what a spreadsheet or pandas shows) and its line in the file (what an
    editor shows); messages give both."""

    file: Path
    row: int
    line: int


def _missing(text: str, column: str, at: _At) -> None:
    require(
        text.strip().lower() not in MISSING_TOKENS,
        f"column {column!r} of {at.file} must have a value on every row",
        value=text,
        row=at.row,
        line=at.line,
    )


def _label(text: str, column: str, at: _At) -> int:
    _missing(text, column, at)
    value: int | None
    try:
        value = int(text)
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        value = int(number) if math.isfinite(number) and number.is_integer() else None
    require(
        value is not None and abs(value) < INT64_LIMIT,
        f"the label column {column!r} of {at.file} must hold integers",
        value=text,
        row=at.row,
        line=at.line,
    )
    return value


def _feature(text: str, column: str, at: _At) -> float:
    _missing(text, column, at)
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    require(
        math.isfinite(value),
        f"the feature column {column!r} of {at.file} must hold finite numbers",
        value=text,
        row=at.row,
        line=at.line,
    )
    return value


def _split(text: str, column: str, at: _At) -> str:
    name = text.strip()
    require(
        name in SPLITS,
        f"the split column {column!r} of {at.file} must name one of the splits {list(SPLITS)}",
        value=text,
        row=at.row,
        line=at.line,
    )
    return name
