"""A user's own CSV file as a dataset: same splits, format and validation as the built-in ones.

The file needs a header row. ``label`` names the integer label column; ``features`` lists the
feature columns (None: every other column). A relative ``path`` is taken from the project root
(:func:`roundlab.paths.project_root`), so the same config works from any working directory.
"""

from __future__ import annotations

import csv
import hashlib
import math
from pathlib import Path

import numpy as np

from roundlab.data.sampling import rng_for, split_table
from roundlab.data.schemas import CsvConfig, require
from roundlab.data.synthetic import Generated
from roundlab.paths import project_root

MISSING_TOKENS = {"", "na", "n/a", "nan", "null", "none"}
INT64_LIMIT = 2**63


def resolve(path: str) -> Path:
    file = Path(path).expanduser()
    return file if file.is_absolute() else project_root() / file


def csv_sources(cfg: CsvConfig) -> dict[str, str]:
    """SHA-256 of the CSV file, keyed by ``path`` as configured: a changed file is new data."""
    file = resolve(cfg.path)
    return {cfg.path: hashlib.sha256(file.read_bytes()).hexdigest()} if file.is_file() else {}


def csv_dataset(cfg: CsvConfig) -> Generated:
    """Rows of the CSV file; labels must be integers (``3`` or ``3.0``), features finite numbers.

    Extrapolate: the rows whose label lies below the ``extrapolate_quantile`` or above the
    ``1 − extrapolate_quantile`` label quantile (see :func:`roundlab.data.sampling.split_table`);
    absent when that leaves no row (``extrapolate_quantile = 0``, or too few distinct labels).
    The rest are split into train/val/test by ``val_fraction``/``test_fraction``.

    No oracle: the rule and the noise behind a user's data are unknown.
    """
    file = resolve(cfg.path)
    require(file.is_file(), "path must name an existing CSV file", path=cfg.path, file=str(file))
    with file.open(newline="", encoding="utf-8-sig") as handle:
        reader = csv.reader(handle)
        header = [column.strip() for column in next(reader, [])]
        require(
            bool(header), f"{file} must start with a header row naming its columns", path=cfg.path
        )
        require(
            len(set(header)) == len(header),
            f"the column names in the header of {file} must be distinct",
            header=header,
        )
        require(
            cfg.label in header,
            f"label must be one of the columns of {file}: {header}",
            label=cfg.label,
        )
        features = cfg.features or [column for column in header if column != cfg.label]
        absent = [column for column in features if column not in header]
        require(not absent, f"features must be columns of {file}: {header}", features=absent)
        require(bool(features), f"{file} needs at least one feature column", header=header)
        label_at = header.index(cfg.label)
        feature_at = [header.index(column) for column in features]
        labels, rows = [], []
        for line, row in enumerate(reader, start=2):
            if not row:  # a blank line
                continue
            require(
                len(row) == len(header),
                f"every row of {file} must have {len(header)} fields like its header",
                line=line,
                fields=len(row),
            )
            labels.append(_label(row[label_at], cfg.label, file, line))
            rows.append([_feature(row[j], header[j], file, line) for j in feature_at])
    require(len(labels) >= 3, f"{file} must hold at least 3 data rows", rows=len(labels))
    x = np.asarray(rows, dtype=np.float64).astype(np.float32)
    require(
        bool(np.isfinite(x).all()),
        f"the features of {file} must stay finite as float32",
        largest=float(np.abs(np.asarray(rows)).max()),
    )
    y = np.asarray(labels, dtype=np.int64)
    splits = split_table(
        rng_for(cfg.seed), x, y, cfg.val_fraction, cfg.test_fraction, cfg.extrapolate_quantile
    )
    return splits, features


def _missing(text: str, column: str, file: Path, line: int) -> None:
    require(
        text.strip().lower() not in MISSING_TOKENS,
        f"column {column!r} of {file} must have a value on every row",
        value=text,
        line=line,
    )


def _label(text: str, column: str, file: Path, line: int) -> int:
    _missing(text, column, file, line)
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
        f"the label column {column!r} of {file} must hold integers",
        value=text,
        line=line,
    )
    return value


def _feature(text: str, column: str, file: Path, line: int) -> float:
    _missing(text, column, file, line)
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    require(
        math.isfinite(value),
        f"the feature column {column!r} of {file} must hold finite numbers",
        value=text,
        line=line,
    )
    return value
