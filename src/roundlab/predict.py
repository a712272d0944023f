"""``python -m roundlab.predict``: integer predictions of a trained run on new data.

    python -m roundlab.predict results/count/rounding/soft_round-alpha=4/lr=0.001/seed=0.json \\
        --input data.csv [--output preds.csv] [--id row_id]
    python -m roundlab.predict outputs/2026-11-30/10-00-00 --input data.csv
    python -m roundlab.predict --run <mlflow run id> --input data.csv

The model is a result file's saved model (:mod:`roundlab.serving.saved_models`), the one result
file below a run directory, or an MLflow run's logged model (``runs:/<id>/model``, on
``$MLFLOW_TRACKING_URI`` or the project's store), loaded only when loading it runs no code from
the store (:mod:`roundlab.tracking.model_check`: a pickled Python model is refused). The CSV
needs a header with the training feature columns (others are ignored); the features are
standardised as in training. The output is a CSV with one column ``prediction`` (after the
``--id`` column when given), on stdout by default. Exit codes: 0; 2 for every error, in one line
on stderr without a traceback: bad input (a missing column, a NaN or non-numeric value: naming
the column and the line; a header with no rows: naming the file, no output written), a source
that holds no model (a reference fit: saying references save no network, with the command that
refits it), an MLflow store that does not exist (none is created), a stored MLflow model that
would run code other than roundlab's own, a model file that is truncated or holds code (a
Lambda layer), a file that cannot be read or written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from roundlab.serving.predict import predict_saved, read_csv, write  # noqa: E402
from roundlab.serving.saved_models import InputError  # noqa: E402


def predictions(args: argparse.Namespace, table: dict[str, list[str]]) -> Any:
    """Integer predictions for ``table`` from the source ``args`` name."""
    if args.run:
        # The MLflow model flavour imports mlflow.pyfunc: only a --run pays for it.
        from roundlab.tracking.model import predict_run

        return predict_run(args.run, table, str(args.input))
    return predict_saved(args.source, table, str(args.input))


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
        run(args)
    except Exception as err:  # a command-line tool: every error is one line, exit 2
        known = isinstance(err, InputError | OSError)
        message = " ".join(str(err).split())
        print(
            f"roundlab.predict: {message if known else f'{type(err).__name__}: {message}'}",
            file=sys.stderr,
        )
        return 2
    return 0


def run(args: argparse.Namespace) -> None:
    """Predict for the rows of ``args.input`` and write the CSV ``args`` asks for."""
    if not args.input.is_file():  # the option it came from, not only the OS's [Errno 2]
        raise InputError(f"--input must name an existing CSV file. Received: --input={args.input}")
    table = read_csv(args.input)
    if args.id_column is not None and args.id_column not in table:
        raise InputError(
            f"--id must name a column of {args.input}. Received: --id={args.id_column}"
        )
    values = predictions(args, table)
    ids = table[args.id_column] if args.id_column else None
    if args.output is None:
        write(sys.stdout, ids, args.id_column, values)
    else:
        with open(args.output, "w", newline="") as handle:
            write(handle, ids, args.id_column, values)


if __name__ == "__main__":
    raise SystemExit(main())
