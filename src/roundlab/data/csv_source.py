"""A user's own CSV data as a dataset: same format and validation as the built-in ones, split at
random or as the user split it.

Three layouts (:meth:`roundlab.data.schemas.CsvConfig.layout`):

- ``random``: one file (``path``), split into train/val/test by
  ``val_fraction``/``test_fraction``, stratified by label (a label too rare for its share of val
  and test stays in train; see :func:`roundlab.data.splits.stratified_table`). No extrapolate
  split by default (``extrapolate_quantile`` 0: every label stays in range); with
  ``extrapolate_quantile`` q > 0 the rows whose label lies below the q or above the 1 − q label
  quantile form one.
- ``split_column``: one file (``path``) whose column ``split_column`` names each row's split:
  train, val, test or extrapolate. At least one train and one test row.
- ``files``: one file per split (``train_path``, ``test_path``, optionally ``val_path`` and
  ``extrapolate_path``). The feature columns are the train file's (``features``, or every
  column but the label); the other files must hold them too, in any order.

In the last two, every row stays in the split it was given, in file order; the user's
extrapolate rows are used as given (their labels need not lie outside the training range), and
``test_fraction``/``extrapolate_quantile`` play no part. Without val rows, val is carved from
the training rows with the seed ``(seed, resample)`` and ``val_fraction`` by
:func:`roundlab.data.splits.carve_val`: stratified by label when every label has at least 2
rows, else at random; meta.json's ``provenance`` records the layout and how the rows were cut
(``cut``: ``stratified`` or ``random`` for the random layout, null otherwise; ``val_from_train``:
``stratified``, ``random``, or null when val was given or cut with the others).

Each layout but the split column can hold several resamples (:mod:`roundlab.data.resamples`):
this module makes the one the config picks.

No oracle: the rule and the noise behind a user's data are unknown.
"""

from __future__ import annotations

import numpy as np

from roundlab.data import resamples
from roundlab.data.csv_table import file_sha256, read_table, resolve
from roundlab.data.dataset import SPLITS
from roundlab.data.sampling import Arrays
from roundlab.data.schemas import require
from roundlab.data.splits import carve_val, resample_rng, stratified_table
from roundlab.data.synthetic import Generated
from roundlab.data.table_schemas import CsvConfig


def csv_sources(cfg: CsvConfig) -> dict[str, str]:
    """SHA-256 of every CSV file the config reads, over all its resamples, keyed by its path as
    configured (the resample filled in): a changed file is new data. A file that does not exist
    has no entry (reading it is refused)."""
    hashes = {path: file_sha256(path) for path in resamples.input_files(cfg)}
    return {path: digest for path, digest in hashes.items() if digest is not None}


def csv_dataset(cfg: CsvConfig) -> Generated:
    """The splits of the CSV data in the config's layout (see the module docstring), for the
    resample it picks (:mod:`roundlab.data.resamples`)."""
    layout = cfg.layout()
    resample = resamples.picked(cfg)
    if layout == "random":
        table = read_table(cfg.path, cfg.label, cfg.features, min_rows=3)
        splits, cut = stratified_table(
            resample_rng(cfg.seed, resample),
            table.x,
            table.y,
            cfg.val_fraction,
            cfg.test_fraction,
            cfg.extrapolate_quantile,
        )
        return Generated(
            splits, table.features, {"layout": layout, "cut": cut, "val_from_train": None}
        )
    cfg = resamples.of(cfg, resample)
    features, given = _files(cfg) if layout == "files" else _split_column(cfg)
    splits, carving = _with_val(cfg, given, resample)
    return Generated(splits, features, {"layout": layout, "cut": None, "val_from_train": carving})


def _files(cfg: CsvConfig) -> tuple[list[str], dict[str, Arrays]]:
    train = read_table(cfg.train_path, cfg.label, cfg.features, key="train_path")
    given = {"train": (train.x, train.y)}
    for split, path in cfg.split_files().items():
        if split != "train":
            table = read_table(path, cfg.label, train.features, key=f"{split}_path")
            given[split] = (table.x, table.y)
    return train.features, given


def _split_column(cfg: CsvConfig) -> tuple[list[str], dict[str, Arrays]]:
    table = read_table(cfg.path, cfg.label, cfg.features, cfg.split_column)
    given = {
        split: (table.x[table.split == split], table.y[table.split == split])
        for split in SPLITS
        if np.any(table.split == split)
    }
    absent = [split for split in ("train", "test") if split not in given]
    require(
        not absent,
        f"the split column {cfg.split_column!r} of {resolve(cfg.path)} must mark at least one "
        f"row for each of train and test",
        absent=absent,
    )
    return table.features, given


def _with_val(
    cfg: CsvConfig, given: dict[str, Arrays], resample: int
) -> tuple[dict[str, Arrays], str | None]:
    """``given`` with a val split carved from train when it has none (drawn with the seed
    ``(seed, resample)``), and how it was carved."""
    if "val" in given:
        return given, None
    x, y = given["train"]
    rng = resample_rng(cfg.seed, resample)
    train_rows, val_rows, method = carve_val(rng, y, cfg.val_fraction)
    carved = {"train": (x[train_rows], y[train_rows]), "val": (x[val_rows], y[val_rows])}
    return {**given, **carved}, method
