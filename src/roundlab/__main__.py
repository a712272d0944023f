"""``roundlab`` (the console script of an installed roundlab, also ``python -m roundlab``).

    roundlab --version                       the installed version
    roundlab study DATA.csv --label y ...    every approach on one CSV, and its report

A command's own arguments go to it whole (``roundlab study --help`` is the study's help). The
pipeline's entry points stay modules: ``python -m roundlab.train``, ``roundlab.sweep``,
``roundlab.report``, ``roundlab.predict``, ``roundlab.data``.
"""

from __future__ import annotations

import argparse
import sys

from roundlab import versions

COMMANDS = {"study": "train and compare every approach on a CSV file, then write its report"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="roundlab",
        description="Which way to train a network whose targets are integers, measured.",
        epilog="Commands: " + "; ".join(f"{name}: {what}" for name, what in COMMANDS.items()),
    )
    parser.add_argument(
        "--version", action="version", version=f"roundlab {versions.roundlab_version()}"
    )
    parser.add_argument("command", choices=sorted(COMMANDS), help="the command to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the command's own arguments")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    # Imported here: a command's imports (TensorFlow among them) cost only when it runs.
    from roundlab.study import cli

    return cli.main(args.args)


if __name__ == "__main__":
    sys.exit(main())
