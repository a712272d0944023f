"""``python -m roundlab.sweep``: the DVC sweep stage's command.

Runs the active profile (params.yaml ``profile``, its entry in profiles.yaml beside it) as
Hydra multiruns (:mod:`roundlab.sweep.runner`), then its rate extensions. ``--dry-run`` prints
the planned commands (the extensions depend on results, so it only announces them) and how the
launcher will group each multirun's jobs, from the same configs and the same grouping function
(:mod:`roundlab.sweep.preview`), without training; ``--profile NAME`` runs another profile
without editing params.yaml (outside DVC: a DVC user switches with ``dvc exp run -S
profile=NAME`` or by editing ``profile:``).

Exit codes: 0 once the plan ran (failed jobs recorded; 1 with ``--fail-on-failed-jobs``, the
expected failures of :func:`roundlab.results.expected_failure` aside); 1 when
a multirun exited with an error or another sweep holds the results directory
(:mod:`roundlab.sweep.lock`); 2 for a profile that cannot run; 130 after SIGINT, 143 after
SIGTERM. Errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from roundlab import interruption, paths
from roundlab.errors import ConfigError, TrackingUnreachable, WriteFailed
from roundlab.sweep import resamples
from roundlab.sweep.plan import command, plan
from roundlab.sweep.profile import load_profile
from roundlab.sweep.progress import EXPECTED, result_tally
from roundlab.sweep.runner import run


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m roundlab.sweep", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--params",
        type=Path,
        default=None,
        help="params file (default: <project root>/params.yaml); profiles.yaml beside it",
    )
    parser.add_argument(
        "--profile", default=None, help="profile to run (default: params.yaml `profile`)"
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=None,
        help="result directory (default: <project root>/results)",
    )
    parser.add_argument(
        "--sweep-dir",
        type=Path,
        default=None,
        help="Hydra sweep directories (default: <project root>/multirun)",
    )
    for flag, text in (
        ("--dry-run", "print the commands only"),
        ("--fail-on-failed-jobs", "exit 1 when a planned run did not finish (default: 0)"),
        ("--fresh", "retrain every run, also those whose result files could be reused"),
    ):
        parser.add_argument(flag, action="store_true", help=text)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    root = paths.project_root()
    try:
        profile = load_profile(args.params or root / "params.yaml", args.profile)
        # checks the activations against the catalogue, and the datasets' resamples
        plan(profile, resamples_of=resamples.from_configs)
    except ValueError as err:  # the message names the key and the value: no traceback
        print(f"config error: {err}", file=sys.stderr)
        return 2
    results_dir = args.results or paths.results_dir()
    sweep_root = args.sweep_dir or root / "multirun"
    if args.dry_run:
        # Composing and validating the jobs' configs imports TensorFlow: only a dry run pays.
        from roundlab.sweep import preview

        for m in plan(profile, resamples_of=resamples.from_configs):
            cmd = command(m, profile, results_dir, sweep_root, args.fresh)
            print(shlex.join(["python", *cmd[1:]]))
            for line in preview.describe(m, profile, cmd):
                print(f"  {line}")
        if profile.rate_extensions:
            print(
                f"then rounds of rate extensions (up to {profile.rate_extensions} rate(s) beyond "
                "each edge of the grid), planned from the result files as the rounds go"
            )
        return 0
    try:
        manifest = run(profile, results_dir, sweep_root, args.fresh)
    except ConfigError as err:
        print(f"config error: {err}", file=sys.stderr)
        return 2
    except TrackingUnreachable as err:
        print(f"tracking error: {err}", file=sys.stderr)
        return 1
    except RuntimeError as err:
        print(err, file=sys.stderr)
        return 1
    except WriteFailed as err:  # a directory it cannot write to, a full disk: one line
        print(f"write error: {err}", file=sys.stderr)
        return 1
    except interruption.Interrupted as err:
        print(
            f"sweep {err.reason}: the running multirun recorded its runs as KILLED; run it "
            "again to resume",
            file=sys.stderr,
        )
        return err.exit_code
    return failed_jobs_exit(results_dir, manifest["planned"]) if args.fail_on_failed_jobs else 0


def failed_jobs_exit(results_dir: Path, planned: list[str]) -> int:
    """``--fail-on-failed-jobs``: 1 (with one line) when a planned run left no result file, a
    file that cannot be read, or did not finish and is no expected failure, else 0."""
    each = {p: result_tally([Path(results_dir) / p]) for p in planned}
    bad = [p for p, t in each.items() if t.finished + t.expected == 0]
    expected = sum(t.expected for t in each.values())
    if not bad:
        return 0
    print(
        f"sweep: {len(bad)} of {len(planned)} runs did not finish (--fail-on-failed-jobs; "
        f"{expected} {EXPECTED} not counted), e.g. {Path(results_dir) / bad[0]}",
        file=sys.stderr,
    )
    return 1
