"""``python -m roundlab.predict``: integer predictions of a trained run on new data.

    python -m roundlab.predict results/count/rounding/soft_round-alpha=4/lr=0.001/seed=0.json \\
        --input data.csv [--output preds.csv] [--id row_id]
    python -m roundlab.predict outputs/2026-11-30/10-00-00 --input data.csv
    python -m roundlab.predict --run <mlflow run id> --input data.csv

The model is a result file's saved model (:mod:`roundlab.saved_models`), the one result file
below a run directory, or an MLflow run's logged model (``runs:/<id>/model``, on
``$MLFLOW_TRACKING_URI`` or the project's store). The CSV needs a header with the training
feature columns (others are ignored); the features are standardised as in training. The output
is a CSV with one column ``prediction`` (after the ``--id`` column when given), on stdout by
default. Exit codes: 0; 2 for bad input (a missing column, a NaN or non-numeric value: one line
naming the column and the line) or a source that holds no model.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

from roundlab.saved_models import InputError, feature_matrix  # noqa: E402


def read_csv(path: Path) -> dict[str, list[str]]:
    """Column name -> values (as text) of a CSV file with a header row."""
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        raise InputError(f"{path} must have a header row. Received: an empty file")
    header, body = rows[0], rows[1:]
    short = next((i for i, row in enumerate(body) if len(row) != len(header)), None)
    if short is not None:
        raise InputError(
            f"{path} line {short + 2}: every row must have the header's {len(header)} fields. "
            f"Received: {len(body[short])} fields"
        )
    return {name: [row[j] for row in body] for j, name in enumerate(header)}


def result_file(source: Path) -> Path:
    """A result file as given, or the single result file below a run directory."""
    if source.is_file():
        return source
    if not source.is_dir():
        raise InputError(
            f"the model source must be a result file or a run directory. "
            f"Received: {source} (not found)"
        )
    found = sorted(p for p in source.rglob("seed=*.json") if p.with_suffix(".keras").is_file())
    if len(found) != 1:
        raise InputError(
            f"a run directory must hold exactly one result file with a saved model; name the "
            f"result file instead. Received: {source} holds {len(found)}"
        )
    return found[0]


def predictions(args: argparse.Namespace, table: dict[str, list[str]]) -> Any:
    """Integer predictions for ``table`` from the source ``args`` name."""
    if args.run:
        import mlflow.pyfunc
        import pandas as pd
        from mlflow.exceptions import MlflowException

        from roundlab import paths, tracking

        tracking.quiet()
        mlflow.set_tracking_uri(paths.default_tracking_uri())
        try:
            model = mlflow.pyfunc.load_model(f"runs:/{args.run}/model")
        except MlflowException as err:
            raise InputError(
                f"--run must name an MLflow run with a logged model. Received: --run={args.run} "
                f"({err.message.splitlines()[0]})"
            ) from None
        features = model.metadata.get_input_schema().input_names()
        matrix = feature_matrix(table, features, str(args.input))
        frame = pd.DataFrame(matrix, columns=features)
        return model.predict(frame)["prediction"].to_numpy()
    from roundlab.saved_models import Predictor

    return Predictor.load(result_file(args.source)).predict_table(table, str(args.input))


def write(out: Any, ids: list[str] | None, id_column: str | None, values: Any) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([id_column, "prediction"] if ids is not None else ["prediction"])
    for i, value in enumerate(values):
        writer.writerow([ids[i], int(value)] if ids is not None else [int(value)])


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m roundlab.predict", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("source", nargs="?", type=Path, help="result file or run directory")
    parser.add_argument("--run", help="MLflow run id (instead of a source)")
    parser.add_argument("--input", type=Path, required=True, help="CSV with the feature columns")
    parser.add_argument("--output", type=Path, help="CSV to write (default: stdout)")
    parser.add_argument("--id", dest="id_column", help="input column copied to the output")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if (args.source is None) == (args.run is None):
        parser.error("give either a result file or run directory, or --run ID")
    try:
        table = read_csv(args.input)
        if args.id_column is not None and args.id_column not in table:
            raise InputError(
                f"--id must name a column of {args.input}. Received: --id={args.id_column}"
            )
        values = predictions(args, table)
    except (InputError, OSError) as err:
        print(f"roundlab.predict: {err}", file=sys.stderr)
        return 2
    ids = table[args.id_column] if args.id_column else None
    if args.output is None:
        write(sys.stdout, ids, args.id_column, values)
    else:
        with open(args.output, "w", newline="") as handle:
            write(handle, ids, args.id_column, values)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
