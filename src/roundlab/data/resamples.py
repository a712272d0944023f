"""A CSV dataset's resamples: R cuts of one file, or R given partitions.

- One file split at random (``path``, ``resamples: R``): resample ``r`` is the stratified cut
  of :func:`roundlab.data.splits.stratified_table` drawn with the seed ``(seed, r)``
  (:func:`roundlab.data.splits.resample_rng`). Repeated stratified holdouts are how ordinal and
  count benchmarks evaluate on small data (e.g. 30 of them): one cut of 150 rows leaves a test
  split of 22 rows, whose score says more about the cut than about the approach.
- Per-split files whose paths hold ``{resample}`` (``train_path: inputs/foo/train_{resample}.csv``,
  ``test_path: inputs/foo/test_{resample}.csv``): resample ``r`` reads the files with ``r`` in
  its place (val from train by ``val_fraction`` when no val pattern is given, as for one set of
  files). R is one more than the largest ``r`` any pattern matches; every pattern must then
  have its file for each of 0..R-1, and the first one missing is refused, named in one line.
- Anything else has one resample.
"""

from __future__ import annotations

import glob
import re
from dataclasses import replace
from pathlib import Path

from roundlab.data.csv_table import resolve
from roundlab.data.schemas import require
from roundlab.data.table_schemas import RESAMPLE_FIELD, CsvConfig


def count(cfg: CsvConfig) -> int:
    """How many resamples the config describes (see the module docstring)."""
    if cfg.layout() == "random":
        return cfg.resamples
    if not cfg.patterned():
        return 1
    patterns = [p for p in cfg.split_files().values() if RESAMPLE_FIELD in p]
    found = {pattern: _indices(pattern) for pattern in patterns}
    require(
        any(found.values()),
        f"a path with {RESAMPLE_FIELD} must match at least one file, with 0, 1, ... in its place",
        **{split: path for split, path in cfg.split_files().items() if path in found},
    )
    total = max(max(indices) for indices in found.values() if indices) + 1
    for pattern in patterns:
        for r in range(total):
            file = fill(pattern, r)
            require(
                resolve(file).is_file(),
                f"each of the {total} resamples 0..{total - 1} needs its file of every pattern",
                pattern=pattern,
                missing=file,
            )
    return total


def fill(path: str, resample: int) -> str:
    """``path`` with its ``{resample}`` replaced by ``resample``."""
    return path.replace(RESAMPLE_FIELD, str(resample))


def picked(cfg: CsvConfig) -> int:
    """The resample a config trains on: ``resample``, None meaning 0."""
    return cfg.resample or 0


def of(cfg: CsvConfig, resample: int) -> CsvConfig:
    """The config of one resample: its partition files in place of the patterns, ``resample``
    set, refused when the dataset has no such resample."""
    total = count(cfg)
    require(
        0 <= resample < total,
        f"resample must name one of the {total} resamples of dataset {cfg.name} (0..{total - 1})",
        resample=resample,
    )
    files = {f"{split}_path": fill(path, resample) for split, path in cfg.split_files().items()}
    return replace(cfg, resample=resample, **files)


def input_files(cfg: CsvConfig) -> list[str]:
    """Every file the dataset is read from, over all its resamples, paths as configured (with
    the resample filled in): a changed partition file is new data for every resample."""
    files = cfg.split_files()
    if not files:
        return [cfg.path]
    if not cfg.patterned():
        return list(files.values())
    return [fill(path, r) for r in range(count(cfg)) for path in files.values()]


def _indices(pattern: str) -> list[int]:
    """The resample numbers of the files that match ``pattern``, sorted."""
    parts = str(resolve(pattern)).split(RESAMPLE_FIELD)
    # The first place captures the number, every other place must repeat it.
    number = re.compile(
        re.escape(parts[0]) + r"(0|[1-9][0-9]*)" + r"\1".join(re.escape(part) for part in parts[1:])
    )
    candidates = glob.glob("*".join(glob.escape(part) for part in parts))
    matches = (number.fullmatch(c) for c in candidates if Path(c).is_file())
    return sorted(int(m.group(1)) for m in matches if m)
