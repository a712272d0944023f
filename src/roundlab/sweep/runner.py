"""The DVC ``sweep`` stage: run a profile's multirun plan (:mod:`roundlab.sweep.plan`),
``processes`` of them at once (a stacked program of small networks keeps about one core busy).

Every job writes its result file under ``results/``, the stage's DVC output (``persist:
true``: DVC keeps it between runs). Both the results directory and the sweep directory are
checked writable before any multirun starts, so a read-only or misnamed directory fails in
one line at once, not after training. ``results/_sweep.yaml`` records the profile and the plan
(every result file the grid should produce), written before the multiruns start, so the report
can name runs that left no file even after a crash; it holds nothing that changes from one run
of the same plan to the next, so a resumed sweep that reuses every run leaves results/
byte-identical. What does change (commands, exit codes, wall times, how many jobs were reused)
goes to ``multirun/_sweep_log.yaml``.

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
changed; ``fresh`` retrains every job. Result files of runs no longer in the plan, and the
temporary files of killed writes, are removed first, except those an extension could plan again
(:func:`roundlab.sweep.extend.candidates`: the same rounds, from the same result files, reuse
them); once the rounds end, result files no round planned are removed too: ``results/`` holds
exactly the plan.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from roundlab import interruption, paths
from roundlab.run.status import finished_records
from roundlab.runs import RunKey
from roundlab.sweep import children, extend, lock, resamples, tracking_check
from roundlab.sweep.housekeeping import prune, reused_jobs
from roundlab.sweep.plan import ONLY_FILE, Multirun, command, plan
from roundlab.sweep.profile import Profile
from roundlab.sweep.progress import (
    QUIET_ENV,
    Progress,
    Tally,
    multirun_ended,
    result_tally,
    tally,
)
from roundlab.tracking.store import PROFILE_ENV, prepare_store

MANIFEST = paths.SWEEP_MANIFEST
# The profiles, beside params.yaml and apart from it: `dvc exp show` prints every key of
# params.yaml but only the tracked keys of another params file, so the table holds the grids
# of the profiles that ran, not of every profile.
LOG = "_sweep_log.yaml"
PROGRESS_EVERY_S = 5.0  # how often the sweep counts its running multiruns' finished jobs
MULTIRUN_LOG = "multirun.log"  # a multirun's output, in its Hydra sweep directory
POLL_S = 0.2  # how often it looks for a multirun that ended


def environment(profile: Profile) -> dict[str, str]:
    """The jobs' environment: this one (quiet TensorFlow: :mod:`roundlab`), the profile (an
    MLflow tag of every run), the progress left to the sweep, and with parallel jobs one thread
    pool share each, because two jobs with a pool the size of the machine fight over the same
    cores."""
    env = dict(os.environ)
    env[PROFILE_ENV] = profile.name
    env[QUIET_ENV] = "1"
    workers = profile.jobs * profile.processes
    if workers > 1:
        threads = str(max(1, (os.cpu_count() or 1) // workers))
        env.setdefault("TF_NUM_INTRAOP_THREADS", threads)
        env.setdefault("TF_NUM_INTEROP_THREADS", "1")
    return env


def prepare(
    results_dir: Path, sweep_root: Path, multiruns: list[Multirun], keep: Sequence[RunKey] = ()
) -> list[Path]:
    """Keep ``results_dir`` to the plan: remove result files of runs no longer planned (they
    would be read as part of this grid) except ``keep`` (the runs an extension could plan), stale
    ``.tmp`` files and the old manifest, and this sweep's own multirun directories, the rate
    extensions' too. Planned result files stay for the jobs to reuse. Returns the removed
    result files."""
    planned = [p for m in multiruns for p in m.result_files(results_dir)]
    removed = prune(results_dir, planned + [k.result_path(results_dir) for k in keep])
    (results_dir / MANIFEST).unlink(missing_ok=True)
    for family in [m.family for m in multiruns] + [extend.EXTENSIONS_DIR]:
        shutil.rmtree(sweep_root / family, ignore_errors=True)
    results_dir.mkdir(parents=True, exist_ok=True)
    sweep_root.mkdir(parents=True, exist_ok=True)
    return removed


@dataclass
class _Launched:
    """A multirun under way: its process, its command, its Hydra sweep directory and when it
    started."""

    multirun: Multirun
    command: list[str]
    process: subprocess.Popen
    sweep_dir: Path
    started: float = field(default_factory=time.perf_counter)


def _run_multiruns(
    multiruns: list[Multirun],
    profile: Profile,
    start: Callable[[Multirun], _Launched],
    report: Callable[[list[Multirun]], None],
    ended: Callable[[_Launched, dict[str, Any]], None],
) -> list[dict[str, Any]]:
    """Run the multiruns in plan order, at most ``profile.processes`` at once, and return their
    log entries in plan order, calling ``report`` with the multiruns started so far every few
    seconds and ``ended`` with each multirun and its entry as it ends. SIGINT or SIGTERM to the
    sweep is passed on to every running multirun (a scheduler signals only the sweep's
    process), so their runs are recorded KILLED before the sweep stops with Interrupted."""
    pending, running, entries = list(multiruns), [], {}
    last_report = time.perf_counter()
    with interruption.interruptible():
        try:
            while pending or running:
                while pending and len(running) < profile.processes:
                    running.append(start(pending.pop(0)))
                for launched in [r for r in running if r.process.poll() is not None]:
                    running.remove(launched)
                    entries[launched.multirun.family] = _log_entry(launched)
                    ended(launched, entries[launched.multirun.family])
                if time.perf_counter() - last_report >= PROGRESS_EVERY_S:
                    report(multiruns[: len(multiruns) - len(pending)])
                    last_report = time.perf_counter()
                time.sleep(POLL_S)
        except interruption.Interrupted as err:
            for launched in running:
                launched.process.send_signal(err.signum)
            for launched in running:
                launched.process.wait()
            raise
    report(multiruns)
    return [entries[m.family] for m in multiruns]


def _log_entry(launched: _Launched) -> dict[str, Any]:
    return {
        "family": launched.multirun.family,
        "round": launched.multirun.round,
        "runs": len(launched.multirun.runs),
        "reused": reused_jobs(launched.sweep_dir),
        "exit_code": launched.process.returncode,
        "wall_time_s": round(time.perf_counter() - launched.started, 1),
        "command": shlex.join(["python", *launched.command[1:]]),
    }


def run(
    profile: Profile, results_dir: Path, sweep_root: Path, fresh: bool = False
) -> dict[str, Any]:
    """Write the manifest, run every multirun, and return the manifest. Jobs whose result files
    can be kept are reused (:mod:`roundlab.sweep.resume`) unless ``fresh``. Raises
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
    with lock.hold(results_dir):
        return _run(profile, results_dir, sweep_root, fresh, tracking.uri)


def _run(
    profile: Profile, results_dir: Path, sweep_root: Path, fresh: bool, tracking_uri: str
) -> dict[str, Any]:
    multiruns = plan(profile, resamples_of=resamples.from_configs)
    removed = prepare(results_dir, sweep_root, multiruns, extend.candidates(profile, multiruns))
    if removed:
        print(f"sweep: removed {len(removed)} result file(s) of runs no longer planned", flush=True)
    manifest = {"profile": profile.name, "jobs": profile.jobs, "planned": []}
    _add_planned(manifest, multiruns, results_dir)
    env = environment(profile)
    if profile.tracking and profile.processes > 1:
        _prepare_store(tracking_uri)
    started = time.perf_counter()

    def start(m: Multirun) -> _Launched:
        cmd = command(m, profile, results_dir, sweep_root, fresh)
        if m.round:
            paths.atomic_write(sweep_root / m.family / ONLY_FILE, extend.allow_list(m))
        (sweep_root / m.family).mkdir(parents=True, exist_ok=True)
        with open(sweep_root / m.family / MULTIRUN_LOG, "w") as out:
            out.write(f"$ {shlex.join(['python', *cmd[1:]])}\n")
            out.flush()  # the child appends through its own descriptor
            process = subprocess.Popen(
                cmd, env=env, stdout=out, stderr=subprocess.STDOUT, **children.popen_options()
            )
        return _Launched(m, cmd, process, sweep_root / m.family)

    log, batch, done = [], multiruns, []
    progress = Progress(sum(len(m.runs) for m in batch), "sweep")

    def report(started_: list[Multirun]) -> None:
        counts = sum(
            (tally(finished_records(sweep_root / m.family)) for m in done + started_), Tally()
        )
        progress.update(counts.done, counts.failed, counts.expected)

    def ended(launched: _Launched, entry: dict[str, Any]) -> None:
        multirun_ended(progress, entry, launched.sweep_dir / MULTIRUN_LOG)

    try:
        while batch:
            n = batch[0].round
            log += _run_multiruns(batch, profile, start, report, ended)
            done += batch
            if any(r["exit_code"] != 0 for r in log):
                break  # an incomplete round says nothing sure about the rates: a rerun resumes
            batch = extend.extensions(profile, done, results_dir, n + 1)
            if batch:
                _add_planned(manifest, batch, results_dir)
                progress.grow(sum(len(m.runs) for m in batch))
                progress.label = f"sweep round {n + 1}"
                progress.write(
                    f"sweep round {n + 1}: {sum(len(m.runs) for m in batch)} extension runs "
                    f"(the next rate beyond an edge its configuration chose) in {len(batch)} "
                    "multirun(s)"
                )
    finally:
        progress.close()
    wall = round(time.perf_counter() - started, 1)
    paths.atomic_write(
        sweep_root / LOG, yaml.safe_dump({"wall_time_s": wall, "multiruns": log}, sort_keys=False)
    )
    planned = manifest["planned"]
    broken = [r["family"] for r in log if r["exit_code"] != 0]
    if not broken:  # the extension candidates no round planned
        prune(results_dir, [results_dir / p for p in planned])
    outcome = result_tally(results_dir / p for p in planned)
    reused = sum(r["reused"] for r in log)
    extra = sum(r["runs"] for r in log if r["round"])
    rounds = max((r["round"] for r in log), default=0)
    extended = f" ({extra} of the runs rate extensions, in {rounds} round(s))" if rounds else ""
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
    return manifest


def _add_planned(manifest: dict[str, Any], multiruns: list[Multirun], results_dir: Path) -> None:
    """Add the runs of ``multiruns`` to the manifest's ``planned`` and write it (atomically)."""
    manifest["planned"] += [
        p.relative_to(results_dir).as_posix()
        for m in multiruns
        for p in m.result_files(results_dir)
    ]
    paths.atomic_write(results_dir / MANIFEST, yaml.safe_dump(manifest, sort_keys=False))


def _prepare_store(uri: str) -> None:
    """Create the MLflow store's schema before parallel multiruns would race to; a store that
    does not answer is left to the jobs, which report it."""
    try:
        prepare_store(uri)
    except Exception as err:
        print(f"sweep: MLflow store not prepared ({type(err).__name__}: {err})", flush=True)
