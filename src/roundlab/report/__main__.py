"""``python -m roundlab.report``: build reports/ from results/ (the DVC report stage).

Exit codes: 0; 1 for a result file it refuses (unreadable, or edited since training wrote it:
its digest does not match) or a file it cannot write, in one line naming the file, with
nothing written for a refused result; 2 for a missing results directory or a profile that
cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from roundlab import paths
from roundlab.errors import ConfigError, WriteFailed
from roundlab.results import UnreadableResult

# The errors the command stops with in one line: their prefix and exit code.
ONE_LINE = (
    (UnreadableResult, "result refused", 1),
    (WriteFailed, "write error", 1),
    (ConfigError, "config error", 2),
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m roundlab.report", description=__doc__)
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="directory of result files (default: <project root>/results)",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="report directory (default: <project root>/reports)"
    )
    parser.add_argument(
        "--no-gradients",
        action="store_true",
        help="leave out the gallery and gradient checks (no TensorFlow needed)",
    )
    parser.add_argument(
        "--profile",
        default=None,
        help="the sweep profile whose plan the results hold, when a <results>/<name>/_sweep.yaml "
        "is missing (default: params.yaml `profile` for the project's results/)",
    )
    parser.add_argument(
        "--no-cost",
        action="store_true",
        help="leave out the recorded numpy cost (bench/numpy_cost.json)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from roundlab.report.pipeline import build_report

    results = args.results or paths.results_dir()
    if not results.is_dir():
        print(
            f"results directory must exist. Received: --results={results} "
            "(run the sweep first: dvc repro)",
            file=sys.stderr,
        )
        return 2
    try:
        out = build_report(
            results,
            args.out or paths.reports_dir(),
            paths.project_root(),
            gradients=not args.no_gradients,
            with_cost=not args.no_cost,
            profile=args.profile,
        )
    except (UnreadableResult, WriteFailed, ConfigError) as err:
        prefix, code = next((p, c) for kind, p, c in ONE_LINE if isinstance(err, kind))
        print(f"{prefix}: {err}", file=sys.stderr)
        return code
    # out.metrics holds every file DVC reads as metrics: headline.json beside the report and
    # one file per approach in metrics/; the line counts only what that directory holds.
    metrics_dir = out.markdown.parent / "metrics"
    in_dir = [p for p in out.metrics if p.parent == metrics_dir]
    beside = "".join(f"{p}, " for p in out.metrics if p.parent != metrics_dir)
    print(
        f"wrote {out.markdown}, {out.html} ({len(out.figures)} figures), {beside}"
        f"{len(in_dir)} metrics files in {metrics_dir}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
