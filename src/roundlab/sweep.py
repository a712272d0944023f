"""The DVC ``sweep`` stage: run the active profile of profiles.yaml as Hydra multiruns.

``python -m roundlab.sweep`` reads ``profile`` (the name of the active profile) from
params.yaml and the profile of that name from profiles.yaml beside it, and runs the grid
datasets × approaches × activation parameters × learning rates × seeds through
``python -m roundlab.train -m``: one multirun for the plain approaches without a rounding
activation, one per approach with methods (ordinal: corn and coral), one for the parameterless
rounding activations, and one per activation with a parameter, each over every dataset,
learning rate and seed of the profile; the references (statsmodels fits) share one multirun at
one seed and rate. Few multiruns means few processes, and each process pays TensorFlow's import
once. ``processes`` of them run at once: a stacked program of small networks keeps about one
core busy.

Every multirun writes to ``multirun/<family>`` (deterministic, so a rerun overwrites it instead
of piling up timestamped directories) and every job writes its result file under ``results/``,
the stage's DVC output (``persist: true``: DVC keeps it between runs). ``results/_sweep.yaml``
records the profile and the plan (every result file the grid should produce), so the report can
name runs that left no file; it holds nothing that changes from one run of the same plan to the
next, so a resumed sweep that reuses every run leaves results/ byte-identical. What does change
(commands, exit codes, wall times, how many jobs were reused) goes to ``multirun/_sweep_log.yaml``.

A sweep resumes: a job whose result file is FINISHED (or FAILED for a deterministic reason) and
carries the job's fingerprint (config, code, data) is not trained again (:mod:`roundlab.resume`),
so a rerun after a crash trains only what is missing or changed. ``--fresh`` retrains every job.
Result files of runs no longer in the plan, and ``.tmp`` files of killed writes, are removed
first: ``results/`` holds exactly the plan.

``python -m roundlab.sweep --dry-run`` prints the commands without running them;
``--profile NAME`` runs another profile without editing params.yaml (outside DVC: a DVC user
switches with ``dvc exp run -S profile=NAME`` or by editing ``profile:``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from roundlab import approaches as approach_catalogue
from roundlab import interruption, paths, resume
from roundlab.callbacks import finished_jobs
from roundlab.progress import QUIET_ENV, Progress
from roundlab.runs import DEFAULT_LEARNING_RATE, RunKey
from roundlab.tracking import PROFILE_ENV

MANIFEST = paths.SWEEP_MANIFEST
# The profiles, beside params.yaml and apart from it: `dvc exp show` prints every key of
# params.yaml but only the tracked keys of another params file, so the table holds the grids
# of the profiles that ran, not of every profile.
PROFILES_FILE = "profiles.yaml"
LOG = "_sweep_log.yaml"
PROGRESS_EVERY_S = 5.0  # how often the sweep counts its running multiruns' finished jobs
POLL_S = 0.2  # how often it looks for a multirun that ended
APPROACHES_WITHOUT_ACTIVATION = approach_catalogue.without_activation()
# The approach whose runs vary by output activation: the profile's `activations` are its runs.
LAUNCHERS = ("vectorized", "basic", "joblib")
ROUNDING = next(a for a in approach_catalogue.names() if approach_catalogue.get(a).uses_activation)
PROFILE_KEYS = {
    "datasets",
    "seeds",
    "learning_rates",
    "approaches",
    "activations",
    "overrides",
    "dataset_overrides",
    "jobs",
    "processes",
    "launcher",
    "max_members",
    "tracking",
}


@dataclass(frozen=True)
class Profile:
    """One entry of profiles.yaml (docs/params.md describes the keys).

    ``activations`` maps a rounding activation to the values of its parameter, or to None for
    one without a parameter; ``learning_rates`` is the grid every configuration is trained at
    (the report picks one per configuration on the validation split, so every approach gets
    the same number of trials); ``overrides`` are Hydra overrides applied to every job (epochs,
    batch size); ``dataset_overrides`` maps a dataset to overrides of its own config keys
    (``n_train=6000`` becomes ``dataset.n_train=6000``: the job then generates that data in
    memory instead of reading data/<name>/); ``launcher`` is the Hydra launcher of every
    multirun: ``vectorized`` (the default: jobs that differ only in seed and parameter train as
    one stacked program of at most ``max_members`` members), ``basic`` (one job after another)
    or ``joblib`` (``jobs`` processes at once); ``processes``: how many multiruns run at once
    (a stacked program of small networks keeps about one core busy, so two use a 2-core
    machine; their runs and results are the same as one after another).
    """

    name: str
    datasets: tuple[str, ...]
    seeds: tuple[int, ...]
    learning_rates: tuple[float, ...] = (DEFAULT_LEARNING_RATE,)
    approaches: tuple[str, ...] = APPROACHES_WITHOUT_ACTIVATION
    activations: dict[str, tuple[float, ...] | None] = field(default_factory=dict)
    overrides: tuple[str, ...] = ()
    dataset_overrides: dict[str, tuple[str, ...]] = field(default_factory=dict)
    jobs: int = 1
    processes: int = 1
    launcher: str = "vectorized"
    max_members: int | None = None
    tracking: bool = True


def load_profile(params_file: Path, name: str | None = None) -> Profile:
    """The profile ``name`` (default: params.yaml's ``profile``) from the profiles file beside
    ``params_file`` (:data:`PROFILES_FILE`), checked."""
    params = yaml.safe_load(Path(params_file).read_text()) or {}
    name = name or params.get("profile")
    profiles_file = Path(params_file).with_name(PROFILES_FILE)
    profiles = yaml.safe_load(profiles_file.read_text()) if profiles_file.is_file() else None
    profiles = profiles or {}
    if name not in profiles:
        raise ValueError(
            f"profile must name an entry of {profiles_file} ({sorted(profiles)}). "
            f"Received: profile={name!r}"
        )
    return parse_profile(name, profiles[name], known_datasets=params.get("datasets"))


def parse_profile(name: str, raw: dict[str, Any], known_datasets: list[str] | None) -> Profile:
    unknown = sorted(set(raw) - PROFILE_KEYS)
    if unknown:
        raise ValueError(
            f"profiles.{name} takes only {sorted(PROFILE_KEYS)}. Received: {', '.join(unknown)}"
        )
    datasets = tuple(raw.get("datasets") or ())
    if not datasets:
        raise ValueError(
            f"profiles.{name}.datasets must list at least one dataset. Received: "
            f"datasets={raw.get('datasets')!r}"
        )
    # A dataset the generate stage does not make would be generated inside every job instead,
    # out of DVC's sight.
    missing = [d for d in datasets if known_datasets is not None and d not in known_datasets]
    if missing:
        raise ValueError(
            f"profiles.{name}.datasets must be among params.yaml `datasets` {known_datasets} "
            f"(the generate stage makes only those). Received: {missing}"
        )
    seeds = tuple(int(s) for s in raw.get("seeds") or ())
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(
            f"profiles.{name}.seeds must be distinct integers, at least one. "
            f"Received: seeds={raw.get('seeds')!r}"
        )
    learning_rates = _learning_rates(name, raw)
    approaches = tuple(raw.get("approaches", APPROACHES_WITHOUT_ACTIVATION) or ())
    bad = [a for a in approaches if a not in APPROACHES_WITHOUT_ACTIVATION]
    if bad:
        raise ValueError(
            f"profiles.{name}.approaches must be among {list(APPROACHES_WITHOUT_ACTIVATION)} "
            f"(rounding runs come from `activations`). Received: {bad}"
        )
    activations = _activation_values(name, raw.get("activations") or {})
    per_dataset = {
        d: tuple(str(o) for o in (v or ())) for d, v in (raw.get("dataset_overrides") or {}).items()
    }
    stray = sorted(set(per_dataset) - set(datasets))
    if stray:
        raise ValueError(
            f"profiles.{name}.dataset_overrides must name datasets of the profile "
            f"{list(datasets)}. Received: {stray}"
        )
    jobs, launcher, max_members = _launcher(name, raw)
    return Profile(
        name=name,
        datasets=datasets,
        seeds=seeds,
        learning_rates=learning_rates,
        approaches=approaches,
        activations=activations,
        overrides=tuple(str(o) for o in raw.get("overrides") or ()),
        dataset_overrides=per_dataset,
        jobs=jobs,
        processes=_processes(name, raw),
        launcher=launcher,
        max_members=max_members,
        tracking=bool(raw.get("tracking", True)),
    )


def _learning_rates(name: str, raw: dict[str, Any]) -> tuple[float, ...]:
    """A profile's ``learning_rates``: distinct positive values (default: the trainer's)."""
    values = raw.get("learning_rates", [DEFAULT_LEARNING_RATE])
    try:
        rates = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        rates = ()
    if not rates or len(set(rates)) != len(rates) or min(rates) <= 0:
        raise ValueError(
            f"profiles.{name}.learning_rates must be a list of distinct values > 0. "
            f"Received: learning_rates={values!r}"
        )
    fixed = [o for o in raw.get("overrides") or () if str(o).startswith("trainer.learning_rate=")]
    if fixed:
        raise ValueError(
            f"profiles.{name}.overrides must not set the learning rate: it is tuned over "
            f"`learning_rates`. Received: {fixed}"
        )
    return rates


def _activation_values(name: str, raw: dict[str, Any]) -> dict[str, tuple[float, ...] | None]:
    """A profile's ``activations``: each a non-empty list of parameter values, or null."""
    out = {}
    for act, values in raw.items():
        if values is not None and (not isinstance(values, list) or not values):
            raise ValueError(
                f"profiles.{name}.activations.{act} must be a non-empty list of "
                f"parameter values or null. Received: {values!r}"
            )
        out[act] = None if values is None else tuple(float(v) for v in values)
    return out


def _processes(name: str, raw: dict[str, Any]) -> int:
    value = raw.get("processes", 1)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(
            f"profiles.{name}.processes must be an integer >= 1. Received: processes={value!r}"
        )
    return value


def _launcher(name: str, raw: dict[str, Any]) -> tuple[int, str, int | None]:
    """``(jobs, launcher, max_members)`` of a profile, checked."""
    launcher = str(raw.get("launcher", "vectorized"))
    if launcher not in LAUNCHERS:
        raise ValueError(
            f"profiles.{name}.launcher must be one of {list(LAUNCHERS)}. "
            f"Received: launcher={launcher!r}"
        )
    jobs = int(raw.get("jobs", 1))
    if jobs < 1 or (jobs > 1 and launcher != "joblib"):
        raise ValueError(
            f"profiles.{name}.jobs must be >= 1, and above 1 only with launcher: joblib. "
            f"Received: jobs={jobs}, launcher={launcher}"
        )
    max_members = raw.get("max_members")
    if max_members is not None and (launcher != "vectorized" or int(max_members) < 1):
        raise ValueError(
            f"profiles.{name}.max_members must be >= 1 and goes with launcher: vectorized. "
            f"Received: max_members={max_members!r}, launcher={launcher}"
        )
    return jobs, launcher, None if max_members is None else int(max_members)


@dataclass(frozen=True)
class Multirun:
    """One ``python -m roundlab.train -m`` call: its name and the overrides that make its grid."""

    family: str
    overrides: tuple[str, ...]
    runs: tuple[RunKey, ...]

    @property
    def once(self) -> bool:
        """Its runs are deterministic fits (the references), planned at one seed and one
        learning rate instead of the profile's grids."""
        return bool(self.runs) and all(
            approach_catalogue.get(r.approach).is_reference for r in self.runs
        )

    def result_files(self, results_dir: Path) -> list[Path]:
        return [run.result_path(results_dir) for run in self.runs]


def _values(values: tuple[float, ...]) -> str:
    return ",".join(f"{v:g}" for v in values)


def activation_param(name: str) -> str | None:
    """The parameter of the activation ``name`` (None when it has none), from the catalogue."""
    from roundlab import activations

    return activations.spec(name).param


def plan(profile: Profile, param_of=activation_param) -> list[Multirun]:
    """The multiruns that cover the profile's grid. Datasets that share their overrides share
    multiruns. ``param_of`` gives an activation's parameter name (None if it has none). A
    reference is fitted once per dataset, at the profile's first seed and the trainer's default
    learning rate: neither changes a deterministic fit, so the report never tunes it."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for d in profile.datasets:
        groups.setdefault(profile.dataset_overrides.get(d, ()), []).append(d)
    out = []
    for extra, datasets in groups.items():
        suffix = "" if len(groups) == 1 else "-" + "-".join(datasets)
        data = (f"dataset={','.join(datasets)}", *(f"dataset.{o}" for o in extra))
        grid = (
            f"trainer.learning_rate={_values(profile.learning_rates)}",
            f"seed={','.join(map(str, profile.seeds))}",
        )
        once = (f"trainer.learning_rate={DEFAULT_LEARNING_RATE:g}", f"seed={profile.seeds[0]}")
        for m in _families(profile, tuple(datasets), param_of):
            rates = (DEFAULT_LEARNING_RATE,) if m.once else profile.learning_rates
            runs = tuple(replace(run, learning_rate=lr) for run in m.runs for lr in rates)
            common = (data[0], *(once if m.once else grid), *data[1:])
            out.append(Multirun(m.family + suffix, (*m.overrides, *common), runs))
    return out


def _approach_families(profile: Profile, datasets: tuple[str, ...]) -> list[Multirun]:
    """The approaches without an output activation: the plain networks share one multirun, an
    approach with methods (ordinal: corn, coral) has its own over every method, and the
    references share one run at the first seed."""
    seeds, out = profile.seeds, []
    specs = [approach_catalogue.get(a) for a in profile.approaches]
    plain = [s.name for s in specs if not s.methods and not s.is_reference]
    if plain:
        runs = tuple(RunKey.of(d, a, seed=s) for d in datasets for a in plain for s in seeds)
        out.append(Multirun("approaches", (f"approach={','.join(plain)}",), runs))
    for spec in (s for s in specs if s.methods):
        runs = tuple(
            RunKey.of(d, spec.name, seed=s, method=m)
            for d in datasets
            for m in spec.methods
            for s in seeds
        )
        overrides = (f"approach={spec.name}", f"approach.method={','.join(spec.methods)}")
        out.append(Multirun(spec.name, overrides, runs))
    references = [s.name for s in specs if s.is_reference]
    if references:
        runs = tuple(RunKey.of(d, a, seed=seeds[0]) for d in datasets for a in references)
        out.append(Multirun("references", (f"approach={','.join(references)}",), runs))
    return out


def _families(profile: Profile, datasets: tuple[str, ...], param_of) -> list[Multirun]:
    """One multirun per family on ``datasets``, without the dataset and seed overrides."""
    seeds, out = profile.seeds, _approach_families(profile, datasets)
    plain = [a for a, v in profile.activations.items() if v is None]
    for act in plain:
        if param_of(act) is not None:
            raise ValueError(
                f"profiles.{profile.name}.activations.{act} needs values of its parameter "
                f"{param_of(act)!r}. Received: null"
            )
    if plain:
        runs = tuple(
            RunKey.of(d, ROUNDING, a, seed=s) for d in datasets for a in plain for s in seeds
        )
        out.append(
            Multirun("activations", (f"approach={ROUNDING}", f"activation={','.join(plain)}"), runs)
        )
    for act, values in profile.activations.items():
        if values is None:
            continue
        param = param_of(act)
        if param is None:
            raise ValueError(
                f"profiles.{profile.name}.activations.{act} takes no parameter: "
                f"write `{act}: null`. Received: {list(values)}"
            )
        runs = tuple(
            RunKey.of(d, ROUNDING, act, {param: v}, s)
            for d in datasets
            for v in values
            for s in seeds
        )
        out.append(
            Multirun(
                act,
                (
                    f"approach={ROUNDING}",
                    f"activation={act}",
                    f"activation.{param}={_values(values)}",
                ),
                runs,
            )
        )
    return out


def expected_groups(m: Multirun, profile: Profile) -> list[str]:
    """How the vectorised launcher will train the multirun's runs: every run of one dataset,
    approach and activation shares a stacked program (seeds, learning rates and parameter
    values are per member; the profile's overrides are common to all), in chunks of
    ``max_members``; numpy-backed activations train one at a time."""
    if profile.launcher != "vectorized":
        return [f"{len(m.runs)} runs one at a time ({profile.launcher} launcher)"]
    from hydra_plugins.roundlab_vectorized_launcher.config import VectorizedLauncherConf
    from roundlab import activations

    size = profile.max_members or VectorizedLauncherConf.max_members
    families: dict[tuple[str, str, str | None, str | None], list[RunKey]] = {}
    for run in m.runs:
        key = (run.dataset, run.approach, run.method, run.activation)
        families.setdefault(key, []).append(run)
    lines = []
    for (dataset, approach, method, activation), runs in families.items():
        what = "/".join(p for p in (dataset, approach, method, activation) if p)
        if m.once:
            lines.append(f"{what}: {len(runs)} fit(s), no network")
            continue
        if activation and activations.spec(activation).numpy_backed:
            lines.append(f"{what}: {len(runs)} runs one at a time (numpy-backed)")
            continue
        chunks = -(-len(runs) // size)
        lines.append(f"{what}: {len(runs)} runs in {chunks} stacked program(s)")
    return lines


def command(
    m: Multirun, profile: Profile, results_dir: Path, sweep_root: Path, fresh: bool = False
) -> list[str]:
    """The multirun's command line; ``fresh`` retrains jobs whose result files could be reused."""
    cmd = [
        sys.executable,
        "-m",
        "roundlab.train",
        "-m",
        *m.overrides,
        *profile.overrides,
        f"results_dir={results_dir}",
        f"tracking.enabled={str(profile.tracking).lower()}",
        f"hydra.sweep.dir={sweep_root / m.family}",
    ]
    if fresh:
        cmd.append("sweep.resume=false")
    cmd.append(f"hydra/launcher={profile.launcher}")
    if profile.launcher == "joblib":
        cmd.append(f"hydra.launcher.n_jobs={profile.jobs}")
    if profile.max_members is not None:
        cmd.append(f"hydra.launcher.max_members={profile.max_members}")
    return cmd


def environment(profile: Profile) -> dict[str, str]:
    """The jobs' environment: quiet TensorFlow, the profile (an MLflow tag of every run), the
    progress left to the sweep, and with parallel jobs one thread pool share each, because two
    jobs with a pool the size of the machine fight over the same cores."""
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env[PROFILE_ENV] = profile.name
    env[QUIET_ENV] = "1"
    workers = profile.jobs * profile.processes
    if workers > 1:
        threads = str(max(1, (os.cpu_count() or 1) // workers))
        env.setdefault("TF_NUM_INTRAOP_THREADS", threads)
        env.setdefault("TF_NUM_INTEROP_THREADS", "1")
    return env


def prepare(results_dir: Path, sweep_root: Path, multiruns: list[Multirun]) -> list[Path]:
    """Keep ``results_dir`` to the plan: remove result files of runs no longer planned (they
    would be read as part of this grid), stale ``.tmp`` files and the old manifest, and this
    sweep's own multirun directories. Planned result files stay for the jobs to reuse. Returns
    the removed result files."""
    planned = [p for m in multiruns for p in m.result_files(results_dir)]
    removed = resume.prune(results_dir, planned)
    (results_dir / MANIFEST).unlink(missing_ok=True)
    for m in multiruns:
        shutil.rmtree(sweep_root / m.family, ignore_errors=True)
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
) -> list[dict[str, Any]]:
    """Run the multiruns in plan order, at most ``profile.processes`` at once, and return their
    log entries in plan order, calling ``report`` with the multiruns started so far every few
    seconds. SIGINT or SIGTERM to the sweep is passed on to every running multirun (a
    scheduler signals only the sweep's process), so their runs are recorded KILLED before the
    sweep stops with Interrupted."""
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
        "runs": len(launched.multirun.runs),
        "reused": resume.reused_jobs(launched.sweep_dir),
        "exit_code": launched.process.returncode,
        "wall_time_s": round(time.perf_counter() - launched.started, 1),
        "command": shlex.join(["python", *launched.command[1:]]),
    }


def run(
    profile: Profile, results_dir: Path, sweep_root: Path, fresh: bool = False
) -> dict[str, Any]:
    """Run every multirun, write the manifest, and return it. Jobs whose result files can be
    kept are reused (:mod:`roundlab.resume`) unless ``fresh``. Raises RuntimeError naming the
    multiruns that exited with an error (a job that fails is not one: it is recorded as a
    FAILED result and the multirun goes on)."""
    results_dir, sweep_root = Path(results_dir).absolute(), Path(sweep_root).absolute()
    multiruns = plan(profile)
    removed = prepare(results_dir, sweep_root, multiruns)
    if removed:
        print(f"sweep: removed {len(removed)} result file(s) of runs no longer planned", flush=True)
    env = environment(profile)
    if profile.tracking and profile.processes > 1:
        _prepare_store()
    started = time.perf_counter()
    progress = Progress(sum(len(m.runs) for m in multiruns), "sweep")

    def start(m: Multirun) -> _Launched:
        cmd = command(m, profile, results_dir, sweep_root, fresh)
        print(f"sweep {m.family}: {len(m.runs)} runs: {shlex.join(cmd[1:])}", flush=True)
        return _Launched(m, cmd, subprocess.Popen(cmd, env=env), sweep_root / m.family)

    def report(started_: list[Multirun]) -> None:
        counts = [finished_jobs(sweep_root / m.family) for m in started_]
        progress.update(sum(c[0] for c in counts), sum(c[1] for c in counts))

    log = _run_multiruns(multiruns, profile, start, report)
    planned = [
        p.relative_to(results_dir).as_posix()
        for m in multiruns
        for p in m.result_files(results_dir)
    ]
    manifest = {"profile": profile.name, "jobs": profile.jobs, "planned": planned}
    (results_dir / MANIFEST).write_text(yaml.safe_dump(manifest, sort_keys=False))
    progress.close()
    wall = round(time.perf_counter() - started, 1)
    (sweep_root / LOG).write_text(
        yaml.safe_dump({"wall_time_s": wall, "multiruns": log}, sort_keys=False)
    )
    missing = [p for p in planned if not (results_dir / p).is_file()]
    reused = sum(r["reused"] for r in log)
    print(
        f"sweep: {len(planned) - len(missing)} of {len(planned)} result files present, "
        f"{reused} reused, in {wall:.0f} s",
        flush=True,
    )
    broken = [r["family"] for r in log if r["exit_code"] != 0]
    if broken:
        raise RuntimeError(
            f"every multirun must exit cleanly. Received: errors in {broken} "
            f"(see the output above and {sweep_root}/<family>)"
        )
    return manifest


def _prepare_store() -> None:
    """Create the MLflow store's schema before parallel multiruns would race to; a store that
    does not answer is left to the jobs, which report it."""
    from roundlab import tracking

    try:
        tracking.prepare_store()
    except Exception as err:
        print(f"sweep: MLflow store not prepared ({type(err).__name__}: {err})", flush=True)


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
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # --dry-run imports the activations
    root = paths.project_root()
    try:
        profile = load_profile(args.params or root / "params.yaml", args.profile)
    except ValueError as err:  # the message names the key and the value: no traceback
        print(f"config error: {err}", file=sys.stderr)
        return 2
    results_dir = args.results or paths.results_dir()
    sweep_root = args.sweep_dir or root / "multirun"
    if args.dry_run:
        for m in plan(profile):
            cmd = command(m, profile, results_dir, sweep_root, args.fresh)
            print(shlex.join(["python", *cmd[1:]]))
            for line in expected_groups(m, profile):
                print(f"  {line}")
        return 0
    try:
        manifest = run(profile, results_dir, sweep_root, args.fresh)
    except RuntimeError as err:
        print(err, file=sys.stderr)
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
    """``--fail-on-failed-jobs``: 1 (with one line) when a planned run left no result file or
    did not finish, else 0."""
    from roundlab import results

    paths_ = [Path(results_dir) / p for p in planned]
    bad = [p for p in paths_ if not p.is_file() or not results.read(p).ok]
    if not bad:
        return 0
    print(
        f"sweep: {len(bad)} of {len(planned)} runs did not finish (--fail-on-failed-jobs), "
        f"e.g. {bad[0]}",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
