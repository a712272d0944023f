"""A profile's grid as Hydra multiruns: which ``python -m roundlab.train -m`` calls cover it.

The grid is datasets × approaches × activation parameters × learning rates × seeds: one
multirun for the plain approaches without a rounding activation, one per approach with methods
(ordinal: corn and coral), one for the parameterless rounding activations, and one per
activation with a parameter, each over every dataset, learning rate and seed of the profile;
the references (statsmodels fits) share one multirun at one seed and rate. A dataset with R > 1
resamples (:mod:`roundlab.data.resamples`) runs every job at each ``dataset.resample=0..R-1``;
datasets with different R, like datasets with different overrides, get their own multiruns.
Few multiruns means
few processes, and each process pays TensorFlow's import once. Every multirun writes to
``<sweep root>/<family>``: deterministic, so a rerun overwrites it instead of piling up
timestamped directories.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from roundlab import approaches as approach_catalogue
from roundlab.approaches import ROUNDING
from roundlab.errors import ConfigError
from roundlab.runs import DEFAULT_LEARNING_RATE, RunKey, activation_parameter
from roundlab.sweep.profile import Profile

# (dataset, its overrides, the dataset config it is composed from) -> its number of resamples
ResamplesOf = Callable[[str, tuple[str, ...], str], int]


@dataclass(frozen=True)
class Multirun:
    """One family's ``python -m roundlab.train -m`` grid: its name and the overrides that make
    it; ``round``: 0 for a planned multirun, n for one of the n-th round of rate extensions
    (:mod:`roundlab.sweep.extend`), whose ``runs`` are part of its grid, the others dropped
    (``sweep.only``). Once the sweep decided which of them run (:mod:`roundlab.sweep.decide`)
    it lists those ``jobs`` instead of a cross product; a worker
    (:mod:`roundlab.sweep.workers`) takes them as one task."""

    family: str
    overrides: tuple[str, ...]
    runs: tuple[RunKey, ...]
    round: int = 0
    # The jobs left to run (roundlab.sweep.decide), each its own overrides; ``overrides`` are
    # then empty.
    jobs: tuple[tuple[str, ...], ...] = ()

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


def plan(
    profile: Profile, param_of=activation_parameter, *, resamples_of: ResamplesOf
) -> list[Multirun]:
    """The multiruns that cover the profile's grid. Datasets that share their overrides and
    their number of resamples share multiruns. ``param_of`` gives an activation's parameter
    name (None if it has none), ``resamples_of(dataset, overrides)`` a dataset's number of
    resamples: the sweep's :func:`roundlab.sweep.resamples.from_configs`, the report's what
    its result files show (the report reads no dataset config). A reference is fitted once per
    dataset (and resample), at the profile's first seed and the trainer's default learning
    rate: neither changes a deterministic fit, so the report never tunes it."""
    groups: dict[tuple[tuple[str, ...], int], list[str]] = {}
    for d in profile.datasets:
        extra = profile.dataset_overrides.get(d, ())
        config = profile.dataset_configs.get(d, d)
        groups.setdefault((extra, resamples_of(d, extra, config)), []).append(d)
    out = []
    for (extra, total), datasets in groups.items():
        suffix = "" if len(groups) == 1 else "-" + "-".join(datasets)
        # None: a dataset without resamples, whose runs name none.
        picks = (None,) if total == 1 else tuple(range(total))
        data = (
            f"dataset={','.join(profile.dataset_configs.get(d, d) for d in datasets)}",
            *(f"dataset.{o}" for o in extra),
            *([f"dataset.resample={','.join(map(str, picks))}"] if total > 1 else []),
        )
        grid = (
            f"trainer.learning_rate={_values(profile.learning_rates)}",
            f"seed={','.join(map(str, profile.seeds))}",
        )
        once = (f"trainer.learning_rate={DEFAULT_LEARNING_RATE:g}", f"seed={profile.seeds[0]}")
        for m in _families(profile, tuple(datasets), param_of):
            rates = (DEFAULT_LEARNING_RATE,) if m.once else profile.learning_rates
            runs = tuple(
                replace(run, learning_rate=lr, resample=r)
                for run in m.runs
                for lr in rates
                for r in picks
            )
            common = (data[0], *(once if m.once else grid), *data[1:])
            out.append(Multirun(m.family + suffix, (*m.overrides, *common), runs))
    return out


def _approach_families(profile: Profile, datasets: tuple[str, ...]) -> list[Multirun]:
    """The approaches without an output activation: the plain networks share one multirun, an
    approach with methods (ordinal: corn, coral; the reference lightgbm, at the first seed) has
    its own over every method, and the other references share one run at the first seed."""
    seeds, out = profile.seeds, []
    specs = [approach_catalogue.get(a) for a in profile.approaches]
    plain = [s.name for s in specs if not s.methods and not s.is_reference]
    if plain:
        runs = tuple(RunKey.of(d, a, seed=s) for d in datasets for a in plain for s in seeds)
        out.append(Multirun("approaches", (f"approach={','.join(plain)}",), runs))
    for spec in (s for s in specs if s.methods):
        planned = seeds[:1] if spec.is_reference else seeds  # a deterministic fit: once
        runs = tuple(
            RunKey.of(d, spec.name, seed=s, method=m)
            for d in datasets
            for m in spec.methods
            for s in planned
        )
        overrides = (f"approach={spec.name}", f"approach.method={','.join(spec.methods)}")
        out.append(Multirun(spec.name, overrides, runs))
    references = [s.name for s in specs if s.is_reference and not s.methods]
    if references:
        runs = tuple(RunKey.of(d, a, seed=seeds[0]) for d in datasets for a in references)
        out.append(Multirun("references", (f"approach={','.join(references)}",), runs))
    return out


def _families(profile: Profile, datasets: tuple[str, ...], param_of) -> list[Multirun]:
    """One multirun per family on ``datasets``, without the dataset and seed overrides."""
    seeds, out = profile.seeds, _approach_families(profile, datasets)
    param_of = _checked(profile, param_of)
    plain = [a for a, v in profile.activations.items() if v is None]
    for act in plain:
        if param_of(act) is not None:
            raise ConfigError(
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
            raise ConfigError(
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


def _checked(profile: Profile, param_of):
    """``param_of`` whose error for an activation the catalogue lacks names the profile key."""

    def checked(act: str) -> str | None:
        try:
            return param_of(act)
        except ValueError as err:
            raise ConfigError(f"profiles.{profile.name}.activations.{act}: {err}") from None

    return checked


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
    cmd.extend(profile.launcher_options)
    if profile.launcher == "joblib":
        cmd.append(f"hydra.launcher.n_jobs={profile.jobs}")
    if profile.max_members is not None:
        cmd.append(f"hydra.launcher.max_members={profile.max_members}")
    return cmd
