"""The study's data: the user's CSV file(s) as one params.yaml dataset entry, checked before
anything is written.

The entry is what a user of the DVC pipeline would add to params.yaml by hand (a CSV config by
value, :mod:`roundlab.data.entries`): ``path`` (or ``train_path`` and ``test_path``) absolute,
so the study directory may live anywhere, ``label``, and the keys the options set. Checking it
runs the pipeline's own code: the entry composes as the sweep's planner composes it
(:func:`roundlab.data.read_config`), and the splits are made as the generate stage makes them
(:func:`roundlab.data.generate`, which reads every row through
:func:`roundlab.data.csv_table.read_table`), so a bad file fails here in the one line the
generate stage would print (file, column, row and value), before any directory exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roundlab import data
from roundlab.data import entries
from roundlab.data.dataset import Dataset
from roundlab.data.schemas import require


@dataclass(frozen=True)
class StudyInput:
    """What the command line says about the data: the file, its label column, the feature
    columns (None: every other column), a test file or a split column (at most one), and how
    many random resamples to evaluate over."""

    path: Path
    label: str
    features: tuple[str, ...] | None = None
    test: Path | None = None
    split_column: str | None = None
    resamples: int | None = None

    def keys(self) -> dict[str, Any]:
        """The params.yaml entry's keys (file paths absolute)."""
        path = str(self.path.expanduser().absolute())
        # always the CSV config, also for a file named like a built-in dataset (count.csv)
        keys: dict[str, Any] = {"config": entries.DEFAULT_CONFIG}
        if self.test:
            keys |= {"train_path": path, "test_path": str(self.test.expanduser().absolute())}
        else:
            keys["path"] = path
        keys["label"] = self.label
        if self.features:
            keys["features"] = list(self.features)
        if self.split_column:
            keys["split_column"] = self.split_column
        if self.resamples is not None:
            keys["resamples"] = self.resamples
        return keys


def parse_features(text: str | None) -> tuple[str, ...] | None:
    """``a,b,c`` as column names (spaces around a name are dropped, as in the header)."""
    if text is None:
        return None
    columns = tuple(c.strip() for c in text.split(","))
    require(all(columns), "--features must list column names separated by commas", features=text)
    return columns


def check(name: str, given: StudyInput) -> tuple[entries.Entry, Dataset]:
    """The params.yaml entry of dataset ``name`` and the splits it makes (the first resample).
    ValueError (one line: file, column, row, value) when the data or the options are refused."""
    entry = entries.parse({name: given.keys()})[name]
    config = data.read_config(entry.config, entry.overrides)
    dataset = data.generate(config)
    labels = sorted({int(v) for part in dataset.splits.values() for v in part.y})
    require(
        len(labels) > 1,
        f"the label column {given.label!r} of {given.path} must hold at least two values "
        "(with one, there is nothing to learn)",
        values=labels,
    )
    return entry, dataset
