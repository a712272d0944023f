"""``roundlab study DATA.csv --label COL`` (also ``python -m roundlab.study``): which approach to
use for one user's integer target, by the pipeline's whole protocol, in one command.

Steps, each the pipeline's own code:

1. check the data (:mod:`roundlab.study.inputs`): a refused file stops here in one line naming
   the file, the column and the row, exit code 2, before anything is written;
2. write the study directory ``--out`` (:mod:`roundlab.study.directory`): params.yaml with the
   dataset entry, profiles.yaml with the budget (:mod:`roundlab.study.budgets`);
3. with ``ROUNDLAB_ROOT=<out>`` for itself and every job: generate data/<name>/
   (``python -m roundlab.data``), run the sweep (``python -m roundlab.sweep``: the vectorised
   launcher, rate extensions, resume by fingerprint) and build reports/
   (``python -m roundlab.report``);
4. print the recommendation per metric (:mod:`roundlab.study.answer`) and the report's path.

Exit codes: 0 once the report is written; 2 for data or options it refuses; otherwise the exit
code of the step that failed (its message above). MLflow runs go to ``<out>/mlflow.db`` unless
``--tracking`` names another store, or ``none``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

from hydra.errors import HydraException

from roundlab.data.schemas import require
from roundlab.errors import ConfigError, WriteFailed
from roundlab.runs import SAFE_NAME, check_name
from roundlab.study import budgets, directory
from roundlab.study.inputs import StudyInput, check, parse_features

NO_TRACKING = "none"
UNTRACKED_ADVICE = f"start it, or run the study untracked with --tracking {NO_TRACKING}"
REFUSED = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="roundlab study",
        description="Run roundlab's comparison on your CSV file and print which approach to use.",
    )
    parser.add_argument("data", type=Path, help="CSV file with a header row")
    parser.add_argument("--label", required=True, help="the integer label column")
    parser.add_argument(
        "--features", default=None, help="feature columns a,b,c (default: every other column)"
    )
    split = parser.add_mutually_exclusive_group()
    split.add_argument("--test", type=Path, default=None, help="a separate test file")
    split.add_argument(
        "--split-column",
        default=None,
        help="a column naming each row's split (train, val, test, extrapolate)",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=None,
        help="evaluate over R random splits of the file (default: 1)",
    )
    parser.add_argument(
        "--budget",
        default="quick",
        choices=budgets.names(),
        help="seeds, rates, epochs and activation grids (default: quick)",
    )
    parser.add_argument(
        "--tracking",
        default=None,
        help=f"MLflow tracking URI, or {NO_TRACKING} (default: <out>/mlflow.db)",
    )
    parser.add_argument("--resume", action="store_true", help="continue the study already in --out")
    parser.add_argument(
        "--out", type=Path, default=None, help="study directory (default: studies/<name>/)"
    )
    parser.add_argument("--name", default=None, help="dataset name (default: the file's stem)")
    return parser


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """``values`` in os.environ for the block (and every process it starts), then restored."""
    before = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in before.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _check_tracking(value: str | None) -> None:
    """``--tracking``: ``none`` or a URI with a scheme (or ``databricks``, MLflow's bare name
    of a workspace). A bare word or path would reach MLflow as a file store, which the pinned
    MLflow refuses in every job, each then running untracked with only a line in its log: a
    mistyped ``none`` would run the whole study that way."""
    if value in (None, NO_TRACKING, "databricks") or urlparse(value).scheme:
        return
    raise ConfigError(
        f"--tracking must be {NO_TRACKING} or an MLflow tracking URI with a scheme "
        f"(sqlite:///path/mlflow.db, http://host:5000). Received: --tracking={value!r}"
    )


def _prepare(args: argparse.Namespace) -> tuple[str, Path]:
    """Check the options and the data, write the study directory; returns the dataset's name
    and the directory. ValueError (ConfigError among them) for anything refused."""
    _check_tracking(args.tracking)
    if args.name is None and not SAFE_NAME.fullmatch(args.data.stem):
        raise ConfigError(
            "the data file's name must make a dataset name (letters, digits, _ - and ., a "
            f"letter or digit first): pass --name. Received: {args.data.name}"
        )
    name = check_name(args.name or args.data.stem, "--name")
    for option, path in (("data", args.data), ("--test", args.test)):
        if path is not None:  # named as the command line names it, not as params.yaml does
            require(
                path.expanduser().is_file(),
                f"{option} must name an existing CSV file",
                **{option: str(path)},
            )
    given = StudyInput(
        args.data,
        args.label,
        parse_features(args.features),
        args.test,
        args.split_column,
        args.resamples,
    )
    entry, _ = check(name, given)  # the generate step prints the splits' sizes
    out = (args.out or directory.default_out(name)).absolute()
    directory.check_fresh(out, args.resume, directory.study_params(name, given.keys(), args.budget))
    raw = budgets.budget(args.budget, tracking=args.tracking != NO_TRACKING)
    directory.write(out, given.keys(), entry, args.budget, raw)
    return name, out


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        name, out = _prepare(args)
    except (ValueError, HydraException) as err:  # ConfigError is a ValueError
        print(f"error: {err}", file=sys.stderr)
        return REFUSED
    except WriteFailed as err:
        print(f"write error: {err}", file=sys.stderr)
        return 1
    env = {"ROUNDLAB_ROOT": str(out)}
    if args.tracking != NO_TRACKING:
        env["MLFLOW_TRACKING_URI"] = args.tracking or f"sqlite:///{out / 'mlflow.db'}"
    with _environment(env):
        return _run(name, out)


def _run(name: str, out: Path) -> int:
    """Generate, sweep, report, answer: under ``ROUNDLAB_ROOT=<out>``, so each step's defaults
    (params.yaml, data/, results/, multirun/, reports/) are the study's."""
    from roundlab.data.__main__ import main as generate
    from roundlab.report.__main__ import main as report
    from roundlab.study.answer import lines, recommended
    from roundlab.sweep.cli import main as sweep

    for step in (
        lambda: generate([name]),
        lambda: sweep([], tracking_advice=UNTRACKED_ADVICE),
        lambda: report([]),
    ):
        code = step()
        if code:
            return code
    print(f"\nstudy {name}: which approach to use (chosen on val; test mean ± 95% CI over seeds)")
    for text in lines(recommended(out / directory.RESULTS_DIR)):
        print(f"  {text}")
    print(f"report: {out / 'reports' / 'report.html'}")
    return 0
