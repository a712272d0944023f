"""Predictions from a saved run on the rows of a CSV file: reading the input, finding the
result file of a run directory, writing the output. The command line is
:mod:`roundlab.predict`."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from roundlab.serving.saved_models import InputError, Predictor


def read_csv(path: Path) -> dict[str, list[str]]:
    """Column name -> values (as text) of a CSV file with a header row and at least one row
    below it: a file with a header only is refused rather than answered with an empty
    prediction file, which would look like a run that predicted nothing."""
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        raise InputError(f"{path} must have a header row. Received: an empty file")
    header, body = rows[0], rows[1:]
    if not body:
        raise InputError(
            f"{path} must have at least one row below its header. Received: a header only "
            f"({len(header)} columns, no rows)"
        )
    short = next((i for i, row in enumerate(body) if len(row) != len(header)), None)
    if short is not None:
        raise InputError(
            f"{path} line {short + 2}: every row must have the header's {len(header)} fields. "
            f"Received: {len(body[short])} fields"
        )
    return {name: [row[j] for row in body] for j, name in enumerate(header)}


def result_file(source: Path) -> Path:
    """A result file as given, or the single result file below a run directory: the one with
    a saved model, else the only one there (a reference fit's, or a failed run's, whose
    loading then says why it holds no model)."""
    if source.is_file():
        return source
    if not source.is_dir():
        raise InputError(
            f"the model source must be a result file or a run directory. "
            f"Received: {source} (not found)"
        )
    every = sorted(source.rglob("seed=*.json"))
    found = [p for p in every if p.with_suffix(".keras").is_file()] or every
    if len(found) != 1:
        raise InputError(
            f"a run directory must hold exactly one result file with a saved model; name the "
            f"result file instead. Received: {source} holds {len(found)}"
        )
    return found[0]


def predict_saved(source: Path, table: dict[str, list[str]], input_name: str) -> Any:
    """Integer predictions for ``table`` from the saved model of a result file or run
    directory ``source``."""
    return Predictor.load(result_file(source)).predict_table(table, input_name)


def write(out: Any, ids: list[str] | None, id_column: str | None, values: Any) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([id_column, "prediction"] if ids is not None else ["prediction"])
    for i, value in enumerate(values):
        writer.writerow([ids[i], int(value)] if ids is not None else [int(value)])
