"""``python -m roundlab.sweep``: the DVC sweep stage's command.

Runs the active profile (params.yaml ``profile``, its entry in profiles.yaml beside it) as
Hydra multiruns (:mod:`roundlab.sweep.runner`), then its rate extensions. ``--dry-run`` prints
the planned commands (the extensions depend on results, so it only announces them) and how the
launcher will group each multirun's jobs, from the same configs and the same grouping function
(:mod:`roundlab.sweep.preview`), without training; ``--profile NAME`` runs another profile
without editing params.yaml (outside DVC: a DVC user switches with ``dvc exp run -S
profile=NAME`` or by editing ``profile:``), into a ``--results`` directory of its own: into the
project's results/ it is refused while they hold another profile's runs, which it would remove.

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
from dataclasses import replace
from pathlib import Path

import yaml

from roundlab import interruption, paths
from roundlab.data import entries
from roundlab.errors import ConfigError, TrackingUnreachable, WriteFailed
from roundlab.sweep import lock, manifest, resamples, workers
from roundlab.sweep.housekeeping import announce_removed, prune
from roundlab.sweep.plan import command, plan
from roundlab.sweep.profile import Profile, load_profile, only
from roundlab.sweep.progress import failed_jobs_exit
from roundlab.sweep.runner import run
from roundlab.tracking import server

# The sweep takes no Hydra overrides: its jobs' tracking settings are the profile's.
SWEEP_TRACKING_ADVICE = (
    "start it, or sweep untracked: the profile's tracking: false, or "
    "tracking.on_unreachable=warn in its overrides"
)


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
        "--dataset",
        default=None,
        help="sweep this dataset of the profile alone, leaving the other datasets' results as "
        "they are (the DVC stage sweep@<name>); sweep directories under multirun/<name>",
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


def main(argv: list[str] | None = None, tracking_advice: str = SWEEP_TRACKING_ADVICE) -> int:
    """The sweep's command; ``tracking_advice`` says how to sweep untracked where the caller
    (the study) has its own switch for it."""
    args = _parser().parse_args(argv)
    root = paths.project_root()
    params_file = args.params or root / "params.yaml"
    try:
        if not params_file.is_file():
            raise ConfigError(f"--params must name a params file. Received: {params_file}")
        profile = load_profile(params_file, args.profile)
        if args.dataset:
            _check_dataset(args.dataset, params_file)
        # checks the activations against the catalogue, and the datasets' resamples
        plan(profile, resamples_of=resamples.from_configs)
    except ValueError as err:  # the message names the key and the value: no traceback
        print(f"config error: {err}", file=sys.stderr)
        return 2
    results_dir = args.results or paths.results_dir()
    sweep_root = args.sweep_dir or root / "multirun" / (args.dataset or "")
    if (args.profile or args.params) and not args.dry_run:
        given = f"--profile={args.profile}" if args.profile else f"--params={args.params}"
        try:
            _check_not_replacing(profile, root / "params.yaml", results_dir, args.dataset, given)
        except ConfigError as err:
            print(f"config error: {err}", file=sys.stderr)
            return 2
    if args.dataset:
        if args.dataset not in profile.datasets:
            return _not_trained(profile, args.dataset, results_dir, args.dry_run)
        profile = only(profile, args.dataset)
    if args.dry_run:
        # Composing and validating the jobs' configs imports TensorFlow: only a dry run pays.
        from roundlab.sweep import preview

        multiruns = plan(profile, resamples_of=resamples.from_configs)
        print(
            f"up to {min(profile.processes, len(multiruns))} worker(s) take each family's jobs, "
            "those not reused, as a task, the costliest first; each family's jobs as a multirun:"
        )
        for m in sorted(multiruns, key=workers.cost, reverse=True):
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
        # from the start, not only while multiruns run: a SIGTERM while the sweep plans (its
        # compositions take seconds) must still release its locks on the way out
        with interruption.interruptible():
            planned = run(
                profile,
                results_dir,
                sweep_root,
                args.fresh,
                datasets_only=bool(args.dataset),
                compositions=args.sweep_dir or root / "multirun",  # one cache for every stage
            )
    except ConfigError as err:
        print(f"config error: {err}", file=sys.stderr)
        return 2
    except TrackingUnreachable as err:
        if isinstance(err, server.Unreachable):
            err = err.advising(tracking_advice)
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
            f"sweep {err.reason}: the runs under way were recorded as KILLED; run it again to "
            "resume",
            file=sys.stderr,
        )
        return err.exit_code
    return failed_jobs_exit(results_dir, planned["planned"]) if args.fail_on_failed_jobs else 0


def _check_dataset(name: str, params_file: Path) -> None:
    """``--dataset`` names an entry of params.yaml's ``datasets`` (so it is a safe name)."""
    known = list(entries.load(params_file))
    if name not in known:
        raise ConfigError(
            f"--dataset must name a dataset of {params_file} `datasets` {known}. "
            f"Received: --dataset={name!r}"
        )


def _check_not_replacing(
    profile: Profile, params_file: Path, results_dir: Path, dataset: str | None, given: str
) -> None:
    """A profile other than the project's params.yaml's (``given`` on the command line:
    ``--profile NAME``, or ``--params FILE`` naming another) into the project's results/
    (however it is named) while a dataset's directory there holds result files that its
    ``_sweep.yaml`` does not give to that profile: refused, since the sweep keeps results/ to its
    own plan and would remove them (the pipeline's, which ``dvc repro`` would then train again).
    A directory whose record is gone counts as another profile's: nothing says whose its runs
    are."""
    active = (
        (yaml.safe_load(params_file.read_text()) or {}).get("profile")
        if params_file.is_file()
        else None
    )
    own = results_dir.resolve() == paths.results_dir().resolve()
    if profile.name == active or not own or not results_dir.is_dir():
        return
    dirs = [results_dir / dataset] if dataset else sorted(results_dir.iterdir())
    held: dict[str, int] = {}
    for d in (d for d in dirs if d.is_dir()):
        recorded = manifest.profiles(results_dir, [d.name])
        files = sum(1 for _ in d.rglob("seed=*.json"))
        if files and recorded != {profile.name}:
            others = sorted(recorded - {profile.name})
            owner = f"of profile {', '.join(others)}" if others else f"with no {manifest.FILE}"
            held[owner] = held.get(owner, 0) + files
    if held:
        what = "; ".join(f"{n} {owner}" for owner, n in held.items())
        raise ConfigError(
            f"{results_dir} holds result files of other runs ({what}): profile "
            f"{profile.name} would remove those it does not plan. Sweep it into a directory of "
            f"its own with --results DIR (and python -m roundlab.report --results DIR --out "
            f"DIR/report), or switch params.yaml's profile (dvc exp run -S "
            f"profile={profile.name}) to replace them. Received: {given}"
        )


def _not_trained(profile: Profile, dataset: str, results_dir: Path, dry_run: bool) -> int:
    """A dataset of params.yaml that the profile does not train: its results directory holds
    an empty plan (the DVC stage's output), and nothing runs."""
    print(f"sweep: profile {profile.name} does not train {dataset}: nothing to sweep", flush=True)
    if dry_run:
        return 0
    with lock.hold(results_dir):
        removed = prune(results_dir / dataset, [])
        manifest.remove(results_dir, [dataset])
        manifest.start(replace(profile, datasets=(dataset,)), results_dir)
    announce_removed(removed)
    return 0
