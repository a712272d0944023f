"""A sweep profile: one entry of profiles.yaml, read and checked (docs/params.md describes the
keys).

``python -m roundlab.sweep`` reads ``profile`` (the name of the active profile) from
params.yaml and the profile of that name from profiles.yaml beside it. Every key is checked
here, before anything runs, with an error naming the key and the value received
(:class:`roundlab.errors.ConfigError`): types strictly (:mod:`roundlab.sweep.profile_fields`),
and the names that become directories against a safe pattern.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from roundlab import approaches as approach_catalogue
from roundlab.data import entries
from roundlab.errors import ConfigError
from roundlab.runs import DEFAULT_LEARNING_RATE, check_name
from roundlab.sweep import profile_fields as fields
from roundlab.sweep.rates import DEFAULT_EXTENSIONS

# The profiles, beside params.yaml and apart from it: `dvc exp show` prints every key of
# params.yaml but only the tracked keys of another params file, so the table holds the grids
# of the profiles that ran, not of every profile.
PROFILES_FILE = "profiles.yaml"
APPROACHES_WITHOUT_ACTIVATION = approach_catalogue.without_activation()
LAUNCHERS = ("vectorized", "basic", "joblib", *fields.SUBMITIT_LAUNCHERS)
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
    "launcher_options",
    "max_members",
    "tracking",
    "rate_extensions",
}
# The vectorised launcher's default group size (its Hydra config holds the same number).
DEFAULT_MAX_MEMBERS = 32


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
    or ``joblib`` (``jobs`` processes at once), or ``vectorized_submitit_slurm`` (``_local``: each
    stacked group one submitit job), whose ``launcher_options`` are ``hydra.launcher`` overrides
    (partition, timeout_min, ...); ``processes``: how many multiruns run at once
    (a stacked program of small networks keeps about one core busy, so two use a 2-core
    machine; their runs and results are the same as one after another);
    ``dataset_configs`` maps a dataset to the dataset config it is composed from when that is
    not its own name (a params.yaml entry by value, :mod:`roundlab.data.entries`), whose keys
    lead its ``dataset_overrides``;
    ``rate_extensions``: how many rates beyond each edge of ``learning_rates`` a configuration
    whose choice sits at that edge may be trained at (:mod:`roundlab.sweep.extend`; 0: none).
    """

    name: str
    datasets: tuple[str, ...]
    seeds: tuple[int, ...]
    learning_rates: tuple[float, ...] = (DEFAULT_LEARNING_RATE,)
    approaches: tuple[str, ...] = APPROACHES_WITHOUT_ACTIVATION
    activations: dict[str, tuple[float, ...] | None] = field(default_factory=dict)
    overrides: tuple[str, ...] = ()
    dataset_overrides: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dataset_configs: dict[str, str] = field(default_factory=dict)
    jobs: int = 1
    processes: int = 1
    launcher: str = "vectorized"
    launcher_options: tuple[str, ...] = ()
    max_members: int | None = None
    tracking: bool = True
    rate_extensions: int = DEFAULT_EXTENSIONS


def load_profile(params_file: Path, name: str | None = None) -> Profile:
    """The profile ``name`` (default: params.yaml's ``profile``) from the profiles file beside
    ``params_file`` (:data:`PROFILES_FILE`), checked, over params.yaml's ``datasets``."""
    params = yaml.safe_load(Path(params_file).read_text()) or {}
    if not isinstance(params, dict):
        raise ConfigError(
            f"{params_file} must map keys (profile, datasets) to values. Received: {params!r}"
        )
    name = name or params.get("profile")
    profiles_file = Path(params_file).with_name(PROFILES_FILE)
    profiles = yaml.safe_load(profiles_file.read_text()) if profiles_file.is_file() else None
    profiles = profiles or {}
    if name not in profiles:
        raise ConfigError(
            f"profile must name an entry of {profiles_file} ({sorted(profiles)}). "
            f"Received: profile={name!r}"
        )
    known = entries.parse(params.get("datasets")) if "datasets" in params else None
    return parse_profile(name, profiles[name], known_datasets=known)


def only(profile: Profile, dataset: str) -> Profile:
    """``profile`` on ``dataset`` alone (one of its datasets), with that dataset's overrides."""
    keep = {dataset}
    return replace(
        profile,
        datasets=(dataset,),
        dataset_overrides={d: o for d, o in profile.dataset_overrides.items() if d in keep},
        dataset_configs={d: c for d, c in profile.dataset_configs.items() if d in keep},
    )


def parse_profile(
    name: str,
    raw: dict[str, Any],
    known_datasets: Mapping[str, entries.Entry] | Sequence[str] | None,
) -> Profile:
    """The profile ``name`` from its entry ``raw``, every key checked for its type and value
    (:mod:`roundlab.sweep.profile_fields`); :class:`ConfigError` names the key and the value.
    ``known_datasets``: params.yaml's dataset entries (or their names); a profile without
    ``datasets`` trains every one of them."""
    check_name(name, "profile")
    if not isinstance(raw, dict):
        raise ConfigError(f"profiles.{name} must be a mapping of keys. Received: {raw!r}")
    unknown = sorted(set(raw) - PROFILE_KEYS)
    if unknown:
        raise ConfigError(
            f"profiles.{name} takes only {sorted(PROFILE_KEYS)}. Received: {', '.join(unknown)}"
        )
    known = _known(known_datasets)
    default = tuple(known) if known is not None and "datasets" not in raw else ()
    datasets = fields.names(name, raw, "datasets", default)
    if not datasets:
        raise ConfigError(
            f"profiles.{name}.datasets must list at least one dataset. Received: "
            f"datasets={raw.get('datasets')!r}"
        )
    # A dataset the generate stage does not make would be generated inside every job instead,
    # out of DVC's sight.
    missing = [d for d in datasets if known is not None and d not in known]
    if missing:
        raise ConfigError(
            f"profiles.{name}.datasets must be among params.yaml `datasets` {list(known)} "
            f"(the generate stage makes only those). Received: {missing}"
        )
    chosen = {d: known[d] for d in datasets} if known is not None else {}
    approaches = fields.names(name, raw, "approaches", APPROACHES_WITHOUT_ACTIVATION)
    bad = [a for a in approaches if a not in APPROACHES_WITHOUT_ACTIVATION]
    if bad:
        raise ConfigError(
            f"profiles.{name}.approaches must be among {list(APPROACHES_WITHOUT_ACTIVATION)} "
            f"(rounding runs come from `activations`). Received: {bad}"
        )
    jobs, launcher, max_members = _launcher(name, raw)
    return Profile(
        name=name,
        datasets=datasets,
        seeds=fields.seeds(name, raw),
        learning_rates=_learning_rates(name, raw),
        approaches=approaches,
        activations=_activation_values(name, raw.get("activations") or {}),
        overrides=fields.overrides(name, "overrides", raw.get("overrides")),
        dataset_overrides=_dataset_overrides(name, raw.get("dataset_overrides"), chosen, datasets),
        dataset_configs={d: e.config for d, e in chosen.items() if e.config != d},
        jobs=jobs,
        processes=fields.integer(name, raw, "processes", 1),
        launcher=launcher,
        launcher_options=fields.launcher_options(name, raw, launcher),
        max_members=max_members,
        tracking=fields.boolean(name, raw, "tracking", True),
        rate_extensions=fields.count(name, raw, "rate_extensions", DEFAULT_EXTENSIONS),
    )


def _learning_rates(name: str, raw: dict[str, Any]) -> tuple[float, ...]:
    """A profile's ``learning_rates``: distinct positive values (default: the trainer's)."""
    values = raw.get("learning_rates", [DEFAULT_LEARNING_RATE])
    rates = tuple(fields.number(v) for v in values) if isinstance(values, list) else ()
    if not rates or None in rates or min(rates) <= 0 or len(set(rates)) != len(rates):
        raise ConfigError(
            f"profiles.{name}.learning_rates must be a list of distinct values > 0. "
            f"Received: learning_rates={values!r}"
        )
    fixed = [o for o in raw.get("overrides") or () if str(o).startswith("trainer.learning_rate=")]
    if fixed:
        raise ConfigError(
            f"profiles.{name}.overrides must not set the learning rate: it is tuned over "
            f"`learning_rates`. Received: {fixed}"
        )
    return rates


def _activation_values(name: str, raw: Any) -> dict[str, tuple[float, ...] | None]:
    """A profile's ``activations``: each a non-empty list of parameter values, or null."""
    if not isinstance(raw, dict):
        raise ConfigError(
            f"profiles.{name}.activations must map activations to their parameter values. "
            f"Received: activations={raw!r}"
        )
    out = {}
    for act, values in raw.items():
        check_name(act, f"profiles.{name}.activations")
        numbers = [fields.number(v) for v in values] if isinstance(values, list) else []
        if values is not None and (not numbers or None in numbers):
            raise ConfigError(
                f"profiles.{name}.activations.{act} must be a non-empty list of "
                f"parameter values (numbers) or null. Received: {values!r}"
            )
        out[act] = None if values is None else tuple(numbers)
    return out


def _known(
    known: Mapping[str, entries.Entry] | Sequence[str] | None,
) -> dict[str, entries.Entry] | None:
    """params.yaml's datasets as entries; a list of names are entries of their own configs."""
    if known is None or isinstance(known, Mapping):
        return None if known is None else dict(known)
    return {str(d): entries.Entry(str(d), str(d)) for d in known}


def _dataset_overrides(
    name: str, raw: Any, chosen: dict[str, entries.Entry], datasets: tuple[str, ...]
) -> dict[str, tuple[str, ...]]:
    """Dataset -> overrides of its own config keys: its params.yaml entry's keys, then the
    profile's ``dataset_overrides`` (which win)."""
    if raw is not None and not isinstance(raw, dict):
        raise ConfigError(
            f"profiles.{name}.dataset_overrides must map datasets to lists of overrides. "
            f"Received: dataset_overrides={raw!r}"
        )
    raw = raw or {}
    # A dataset the profile does not train (params.yaml does not list it) may have overrides
    # for when it does, as long as it is a dataset: a misspelt name is refused.
    known = {*datasets, *chosen, *entries.config_names()}
    stray = sorted(str(d) for d in set(raw) - known)
    if stray:
        raise ConfigError(
            f"profiles.{name}.dataset_overrides must name datasets of the profile "
            f"{list(datasets)} or dataset configs. Received: {stray}"
        )
    out = {}
    for d in datasets:
        own = fields.overrides(name, f"dataset_overrides.{d}", raw.get(d), prefix="dataset.")
        given = chosen[d].overrides if d in chosen else ()
        if given or own:
            out[d] = (*given, *own)
    return out


def _launcher(name: str, raw: dict[str, Any]) -> tuple[int, str, int | None]:
    """``(jobs, launcher, max_members)`` of a profile, checked."""
    launcher = raw.get("launcher", "vectorized")
    if launcher not in LAUNCHERS:
        raise ConfigError(
            f"profiles.{name}.launcher must be one of {list(LAUNCHERS)}. "
            f"Received: launcher={launcher!r}"
        )
    jobs = fields.integer(name, raw, "jobs", 1)
    if jobs > 1 and launcher != "joblib":
        raise ConfigError(
            f"profiles.{name}.jobs goes above 1 only with launcher: joblib. "
            f"Received: jobs={jobs}, launcher={launcher}"
        )
    max_members = raw.get("max_members")
    if max_members is None:
        return jobs, launcher, None
    if not launcher.startswith("vectorized"):
        raise ConfigError(
            f"profiles.{name}.max_members goes with launcher: vectorized or vectorized_submitit_*. "
            f"Received: max_members={max_members!r}, launcher={launcher}"
        )
    return jobs, launcher, check_max_members(max_members, f"profiles.{name}.max_members")


def check_max_members(value: Any, key: str = "hydra.launcher.max_members") -> int:
    """``max_members``, the most members trained as one stacked program: an integer >= 1."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{key} must be an integer >= 1. Received: max_members={value!r}")
    return value
