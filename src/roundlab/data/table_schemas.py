"""Typed schemas of the dataset configs read from a table of rows: scikit-learn's and
statsmodels' bundled data and a user's CSV files (the synthetic generators' schemas are in
:mod:`roundlab.data.schemas`, with the checks both share)."""

from __future__ import annotations

from dataclasses import dataclass

from omegaconf import MISSING

from roundlab.data.dataset import SPLITS
from roundlab.data.schemas import DatasetConfig, check_fractions, require

# Where a per-split path names its resample: inputs/foo/train_{resample}.csv
RESAMPLE_FIELD = "{resample}"


@dataclass
class TableConfig(DatasetConfig):
    """Datasets with a fixed number of rows, split by fractions."""

    val_fraction: float = MISSING
    test_fraction: float = MISSING
    extrapolate_quantile: float = MISSING

    def check(self) -> None:
        super().check()
        check_fractions("val_fraction", self.val_fraction, "test_fraction", self.test_fraction)
        require(
            0 <= self.extrapolate_quantile < 0.5,
            "extrapolate_quantile must be in [0, 0.5) (0: no extrapolate split)",
            extrapolate_quantile=self.extrapolate_quantile,
        )


@dataclass
class DiabetesConfig(TableConfig):
    generator: str = "diabetes"


@dataclass
class RandhieConfig(TableConfig):
    """statsmodels' RAND Health Insurance Experiment data: ``mdvis`` (doctor visits, 0..77) from
    9 covariates (see :mod:`roundlab.data.statsmodels_sets`)."""

    generator: str = "randhie"


@dataclass
class Anes96Config(TableConfig):
    """statsmodels' 1996 American National Election Survey: ``PID`` (party identification,
    0..6) from 8 covariates (see :mod:`roundlab.data.statsmodels_sets`)."""

    generator: str = "anes96"


@dataclass
class CsvConfig(TableConfig):
    """A user's CSV data in one of three layouts (see :mod:`roundlab.data.csv_source`):

    - ``path``: one file split at random by the fractions (and the label quantile);
    - ``path`` and ``split_column``: one file whose column names each row's split;
    - ``train_path`` and ``test_path``, optionally ``val_path`` and ``extrapolate_path``: one
      file per split.

    Paths are relative to the project root unless absolute; ``features`` None means every
    column except ``label`` (and ``split_column``). ``extrapolate_quantile`` defaults to 0: a
    user's rarest extreme labels (every 1 of a 1..5 rating) stay in train, where classification
    and ordinal heads can learn them; an extrapolate split of the label tails is opt-in.

    Resamples (:mod:`roundlab.data.resamples`): ``resamples`` R > 1 cuts one file R times,
    each cut stratified with the seed ``(seed, r)``; per-split files whose paths hold
    ``{resample}`` (``train_{resample}.csv``) are R given partitions, R the number of files.
    ``resample`` picks the one a run trains on: None means resample 0, with no resample in the
    run's identity (:class:`roundlab.runs.RunKey`), as for a dataset without resamples; the
    sweep sets 0..R-1 for a dataset with R > 1.
    """

    generator: str = "csv"
    extrapolate_quantile: float = 0.0
    path: str | None = None
    split_column: str | None = None
    train_path: str | None = None
    val_path: str | None = None
    test_path: str | None = None
    extrapolate_path: str | None = None
    label: str = MISSING
    features: list[str] | None = None
    resamples: int = 1
    resample: int | None = None

    def split_files(self) -> dict[str, str]:
        """The per-split files that are set: split name -> path as configured."""
        named = {split: getattr(self, f"{split}_path") for split in SPLITS}
        return {split: path for split, path in named.items() if path}

    def patterned(self) -> bool:
        """Whether a per-split path names its resample's file (holds ``{resample}``)."""
        return any(RESAMPLE_FIELD in path for path in self.split_files().values())

    def layout(self) -> str:
        """``files``, ``split_column`` or ``random`` (see the class docstring)."""
        if self.split_files():
            return "files"
        return "split_column" if self.split_column else "random"

    def check(self) -> None:
        super().check()
        require(bool(self.label), "label must name a column of the CSV file", label=self.label)
        files = self.split_files()
        if files:
            require(
                not self.path and not self.split_column,
                "give one file (path, optionally split_column) or one file per split "
                "(train_path, test_path, ...), not both",
                path=self.path,
                split_column=self.split_column,
                **{f"{split}_path": file for split, file in files.items()},
            )
            require(
                "train" in files and "test" in files,
                "one file per split needs at least train_path and test_path",
                train_path=self.train_path,
                test_path=self.test_path,
            )
        else:
            require(
                bool(self.path),
                "path must name a CSV file (or set train_path and test_path: one file per split)",
                path=self.path,
            )
        if self.features is not None:
            require(
                len(self.features) >= 1 and self.label not in self.features,
                "features must list at least one column, and not the label column",
                features=self.features,
                label=self.label,
            )
        require(self.resamples >= 1, "resamples must be >= 1", resamples=self.resamples)
        require(
            self.resamples == 1 or self.layout() == "random",
            "resamples applies to one file split at random; per-split files name their "
            f"resamples with {RESAMPLE_FIELD} in their paths (train_{RESAMPLE_FIELD}.csv)",
            resamples=self.resamples,
            layout=self.layout(),
        )
        if self.resample is not None:
            require(self.resample >= 0, "resample must be >= 0", resample=self.resample)
            require(
                self.layout() != "random" or self.resample < self.resamples,
                f"resample must name one of the resamples 0..{self.resamples - 1}",
                resample=self.resample,
                resamples=self.resamples,
            )
        require(
            self.path is None or RESAMPLE_FIELD not in self.path,
            f"{RESAMPLE_FIELD} names partition files: use it in train_path, test_path, ...",
            path=self.path,
        )
        if self.split_column is not None:
            require(
                bool(self.split_column)
                and self.split_column != self.label
                and self.split_column not in (self.features or []),
                "split_column must name a column that is neither the label nor a feature",
                split_column=self.split_column,
                label=self.label,
                features=self.features,
            )
