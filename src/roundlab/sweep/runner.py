"""The DVC ``sweep`` stage: run a profile's multirun plan (:mod:`roundlab.sweep.plan`), each
round's multiruns packed into ``processes`` workers that run at once
(:mod:`roundlab.sweep.workers`: one process start per worker, not per family; a stacked
program of small networks keeps about one core busy).

Every job writes its result file under ``results/``, the stage's DVC output (``persist:
true``: DVC keeps it between runs). Both the results directory and the sweep directory are
checked writable before any multirun starts, so a read-only or misnamed directory fails in
one line at once, not after training. ``results/<dataset>/_sweep.yaml`` records the profile
and the dataset's plan (:mod:`roundlab.sweep.manifest`). What changes from one run of the same
plan to the next (commands, exit codes, wall times, how many jobs were reused) goes to
``<sweep root>/_sweep_log.yaml``.

After the planned multiruns, the rate extensions run in rounds (:mod:`roundlab.sweep.extend`):
each round reads the result files, trains the next rate outward for every configuration whose
chosen rate sits at an edge of its grid and beats its neighbour on val, and adds those runs to
the manifest's ``planned`` (rewritten atomically after each round), until no configuration
extends. The log and the terminal say which round each multirun belongs to and how many
extension runs it trained.

The terminal shows one progress bar for the whole sweep (:mod:`roundlab.sweep.progress`; plain
lines when stderr is not a terminal) and one line per multirun as it ends, ``multirun <family>:
…`` with its counts and its log; each multirun's own output (Hydra's and TensorFlow's) goes to
``<sweep dir>/<family>/multirun.log``, whose last lines are printed when it exits with an error.

A sweep resumes: a job whose result file is FINISHED (or FAILED for a deterministic reason) and
carries the job's fingerprint (config, code, data) is not trained again
(:mod:`roundlab.sweep.resume`), so a rerun after a crash trains only what is missing or
changed; ``fresh`` retrains every job. The sweep finds those jobs itself before each round
(:mod:`roundlab.sweep.decide`, without TensorFlow) and starts workers only for the jobs left:
a rerun with nothing to train starts no process, and reads the configs it composed before from
``<sweep dir>/.compose-cache/`` (:mod:`roundlab.sweep.compose_cache`). Result files of runs no
longer in the plan, and the temporary files of killed writes, are removed first, except those
an extension could plan again (:func:`roundlab.sweep.extend.candidates`: the same rounds, from
the same result files, reuse them); once the rounds end, result files no round planned are
removed too: each dataset's directory holds exactly its plan.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import yaml

from roundlab import paths
from roundlab.run.status import finished_records
from roundlab.runs import RunKey
from roundlab.sweep import (
    children,
    compose_cache,
    extend,
    lock,
    manifest,
    queue,
    resamples,
    tracking_check,
    workers,
)
from roundlab.sweep.housekeeping import announce_removed, prune
from roundlab.sweep.plan import Multirun, command, plan
from roundlab.sweep.profile import Profile
from roundlab.sweep.progress import (
    QUIET_ENV,
    Progress,
    Tally,
    multirun_ended,
    result_tally,
    tally,
)
from roundlab.sweep.rounds import Rounds
from roundlab.tracking.store import PROFILE_ENV

# The profiles, beside params.yaml and apart from it: `dvc exp show` prints every key of
# params.yaml but only the tracked keys of another params file, so the table holds the grids
# of the profiles that ran, not of every profile.
LOG = "_sweep_log.yaml"
MULTIRUN_LOG = "multirun.log"  # a multirun's output, in its Hydra sweep directory
QUEUE = "_queue"  # the workers' task queue (roundlab.sweep.queue), in the sweep directory


def environment(profile: Profile) -> dict[str, str]:
    """The jobs' environment: this one (quiet TensorFlow: :mod:`roundlab`), the profile (an
    MLflow tag of every run), the progress left to the sweep, and with parallel jobs one thread
    pool share each, because two jobs with a pool the size of the machine fight over the same
    cores."""
    env = dict(os.environ)
    env[PROFILE_ENV] = profile.name
    env[QUIET_ENV] = "1"
    parallel = profile.jobs * profile.processes
    # A cluster launcher's jobs run on other machines, each with the CPUs its job asked for:
    # this machine's share would be wrong there (and sbatch passes the environment on).
    if parallel > 1 and not profile.launcher.startswith(workers.CLUSTER_LAUNCHERS):
        threads = str(max(1, (os.cpu_count() or 1) // parallel))
        env.setdefault("TF_NUM_INTRAOP_THREADS", threads)
        env.setdefault("TF_NUM_INTEROP_THREADS", "1")
    return env


def prepare(
    results_dir: Path,
    sweep_root: Path,
    multiruns: list[Multirun],
    keep: Sequence[RunKey] = (),
    datasets: Sequence[str] | None = None,
) -> list[Path]:
    """Keep ``results_dir`` to the plan: remove result files of runs no longer planned (they
    would be read as part of this grid) except ``keep`` (the runs an extension could plan), stale
    ``.tmp`` files and the old manifests, and this sweep's own multirun directories, the rate
    extensions' too. With ``datasets``, only those datasets' directories are kept to the plan
    and the others left as they are (a DVC stage sweeps one dataset). Planned result files stay
    for the jobs to reuse. Returns the removed result files."""
    planned = [p for m in multiruns for p in m.result_files(results_dir)]
    planned += [k.result_path(results_dir) for k in keep]
    scope = [results_dir] if datasets is None else [results_dir / d for d in datasets]
    removed = [path for root in scope for path in prune(root, planned)]
    manifest.remove(results_dir, datasets or [d.parent.name for d in _records(results_dir)])
    old = [m.family for m in multiruns] + [extend.EXTENSIONS_DIR, QUEUE]
    for directory in [*(sweep_root / f for f in old), *sweep_root.glob(f"{workers.WORKER}-*")]:
        shutil.rmtree(directory, ignore_errors=True)
    results_dir.mkdir(parents=True, exist_ok=True)
    sweep_root.mkdir(parents=True, exist_ok=True)
    return removed


def _records(results_dir: Path) -> list[Path]:
    return list(Path(results_dir).glob(f"*/{manifest.FILE}"))


def run(
    profile: Profile,
    results_dir: Path,
    sweep_root: Path,
    fresh: bool = False,
    *,
    datasets_only: bool = False,
    compositions: Path | None = None,
) -> dict[str, Any]:
    """Write the manifests (:mod:`roundlab.sweep.manifest`), run every multirun, and return the
    plan as one manifest. Jobs whose result files can be kept are reused
    (:mod:`roundlab.sweep.resume`) unless ``fresh``. ``datasets_only``: leave the directories
    of datasets outside the profile as they are (the DVC stage of one dataset); otherwise
    ``results_dir`` ends holding exactly the profile's plan. ``compositions``: the directory
    whose ``.compose-cache/`` keeps the composed configs (default ``sweep_root``; the project's
    sweeps share ``multirun/``, so the whole project's resume finds what each dataset's stage
    composed). Raises
    TrackingUnreachable, before anything is written, when the tracking server does not answer
    and the jobs' policy is to fail (:mod:`roundlab.sweep.tracking_check`); WriteFailed for a
    directory it cannot write to (before anything runs) or a file it cannot write;
    :class:`roundlab.sweep.lock.ResultsDirBusy` when another sweep writes into ``results_dir``
    (:mod:`roundlab.sweep.lock`); RuntimeError naming the multiruns that exited with an error (a
    job that fails is not one: it is recorded as a FAILED result and the multirun goes on)."""
    results_dir, sweep_root = Path(results_dir).absolute(), Path(sweep_root).absolute()
    # Before anything is written, removed or started: a server that does not answer fails the
    # sweep here (TrackingUnreachable) or turns tracking off for every multirun, with one warning.
    tracking = tracking_check.decide(profile)
    profile = replace(profile, tracking=tracking.enabled)
    paths.check_writable(results_dir, "--results")
    paths.check_writable(sweep_root, "--sweep-dir")
    scope = profile.datasets if datasets_only else None
    with contextlib.ExitStack() as held:
        held.enter_context(lock.hold(results_dir))
        if sweep_root != results_dir:  # the workers' task queue is there
            held.enter_context(lock.hold(sweep_root, "--sweep-dir"))
        cache = compose_cache.ComposeCache(
            Path(compositions or sweep_root).absolute() / compose_cache.DIRECTORY
        )
        return _run(profile, results_dir, sweep_root, fresh, scope, cache)


def _run(
    profile: Profile,
    results_dir: Path,
    sweep_root: Path,
    fresh: bool,
    scope: Sequence[str] | None,
    cache: compose_cache.ComposeCache,
) -> dict[str, Any]:
    multiruns = plan(profile, resamples_of=resamples.from_configs)
    keep = extend.candidates(profile, multiruns)
    announce_removed(prepare(results_dir, sweep_root, multiruns, keep, scope))
    records = manifest.start(profile, results_dir)
    manifest.add(records, multiruns, results_dir)
    env = environment(profile)
    started = time.perf_counter()
    queue_dir = sweep_root / QUEUE

    def start(m: Multirun) -> children.Launched:
        cmd = [*command(m, profile, results_dir, sweep_root, fresh), f"sweep.queue={queue_dir}"]
        (sweep_root / m.family).mkdir(parents=True, exist_ok=True)
        with open(sweep_root / m.family / MULTIRUN_LOG, "w") as out:
            out.write(f"# tasks from {queue_dir}\n$ {shlex.join(['python', *cmd[1:]])}\n")
            out.flush()  # the child appends through its own descriptor
            process = subprocess.Popen(
                cmd, env=env, stdout=out, stderr=subprocess.STDOUT, **children.popen_options()
            )
        return children.Launched(m, cmd, process, sweep_root / m.family)

    progress = Progress(sum(len(m.runs) for m in multiruns), "sweep")
    rounds = Rounds(profile, results_dir, queue_dir, records, progress, fresh, multiruns)
    rounds.cache = cache
    log: list[dict[str, Any]] = []
    pool: list[Multirun] = []
    stopped = broken = False

    def report(started_: list[Multirun]) -> None:
        counts = sum((tally(finished_records(sweep_root / m.family)) for m in started_), Tally())
        progress.update(counts.done, counts.failed, counts.expected)

    def workers_for_round() -> list[Multirun]:
        """As many workers as the round has tasks, up to ``processes``: the ones missing."""
        wanted = min(profile.processes, rounds.queued)
        new = [Multirun(f"{workers.WORKER}-{i + 1}", (), ()) for i in range(len(pool), wanted)]
        pool.extend(new)
        return new

    def tick() -> list[Multirun]:
        nonlocal stopped
        if stopped:
            return []
        # after a worker failed the others finish the queued tasks, and no round follows
        over = not queue.waiting(queue_dir) if broken else not rounds.advance()
        if over:
            stopped = True
            queue.stop(queue_dir)
            return []
        return workers_for_round()

    def ended(one: children.Launched, entry: dict[str, Any]) -> None:
        nonlocal broken
        broken = broken or entry["exit_code"] != 0
        taken = queue.taken(queue_dir, one.multirun.family)
        # a family split per stacked group may come in more than one task
        entry["families"] = list(dict.fromkeys(f for task in taken for f in task["families"]))
        entry["runs"] = sum(task["runs"] for task in taken)
        multirun_ended(progress, entry, one.sweep_dir / MULTIRUN_LOG)

    try:
        # Only now: a sweep that trains nothing never opens MLflow. The workers make the
        # store's schema themselves, taking turns (roundlab.tracking.store.prepare_store).
        if rounds.settle():
            log = children.run_multiruns(workers_for_round(), profile, start, report, ended, tick)
    finally:
        progress.close()
    wall = round(time.perf_counter() - started, 1)
    paths.atomic_write(
        sweep_root / LOG,
        yaml.safe_dump(
            {
                "wall_time_s": wall,
                "reused_before_start": len(rounds.reused),
                "rounds": rounds.log,
                "multiruns": log,
            },
            sort_keys=False,
        ),
    )
    planned = [p for record in records.values() for p in record["planned"]]
    broken = [r["family"] for r in log if r["exit_code"] != 0]
    if not broken:  # the extension candidates no round planned
        for d in profile.datasets:
            prune(results_dir / d, [results_dir / p for p in planned])
    outcome = result_tally(results_dir / p for p in planned)
    reused = len(rounds.reused) + sum(r["reused"] for r in log)
    extra = sum(len(m.runs) for m in rounds.done if m.round)
    last = max((m.round for m in rounds.done), default=0)
    extended = f" ({extra} of the runs rate extensions, in {last} round(s))" if last else ""
    print(
        f"sweep: {outcome.done} of {len(planned)} result files present, {reused} reused, in "
        f"{wall:.0f} s{extended}; {outcome.finished} finished, {outcome.failures()}",
        flush=True,
    )
    if broken:
        raise RuntimeError(
            f"every multirun must exit cleanly. Received: errors in {broken} "
            f"(see {sweep_root}/<family>/{MULTIRUN_LOG})"
        )
    return {"profile": profile.name, "jobs": profile.jobs, "planned": planned}
