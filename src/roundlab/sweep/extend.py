"""The rate extensions: after a sweep's multiruns end, the configurations whose chosen rate sits
at an edge of their grid and beats its neighbour on val (:func:`roundlab.sweep.rates.next_rate`)
are trained at the next rate outward, every seed, in rounds, until every choice is interior or a
bound is hit (``rate_extensions`` rates beyond the profile's grid per side, rates within
:data:`roundlab.sweep.rates.BOUNDS`). References (deterministic fits) are never extended.

A round batches its runs by family: one multirun per planned multirun with something to extend,
over the union of the datasets, methods, activations, parameters and new rates its runs need,
every seed, restricted to exactly those runs by an allow-list (``sweep.only``; the sweep lists
them job by job, :mod:`roundlab.sweep.decide`), named ``rate_extensions/<round>/<family>``. Its
jobs go to the sweep's workers as tasks (:mod:`roundlab.sweep.workers`). A configuration's next
rate depends on its own runs alone, so the sweep plans each family's next round as soon as its
round ended (:mod:`roundlab.sweep.rounds`): given one family's multiruns, :func:`extensions`
gives that family's round, the one it gives for all of them.

Only configurations whose every run so far left a readable result file are considered: a missing
run says nothing about which rate is best. Everything here reads result files, never trains, and
imports no TensorFlow, so the report recomputes a lost manifest's extensions the same way
(:func:`all_rounds`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import yaml

from roundlab import results
from roundlab.runs import DEFAULT_LEARNING_RATE, RunKey
from roundlab.sweep import result_reads
from roundlab.sweep.plan import Multirun
from roundlab.sweep.profile import Profile
from roundlab.sweep.rates import Trial, ladder, next_rate

EXTENSIONS_DIR = "rate_extensions"


def _configuration(key: RunKey) -> RunKey:
    """The run's configuration: its key with the seed, the resample and the rate set aside (the
    report pools a configuration's seeds and resamples, and so does the rate choice)."""
    return replace(key, seed=0, resample=None, learning_rate=DEFAULT_LEARNING_RATE)


def root(family: str) -> str:
    """The planned multirun's family that ``family`` (planned or an extension's,
    ``rate_extensions/<round>/<family>``) belongs to."""
    return family.rsplit("/", 1)[-1]


def candidates(profile: Profile, multiruns: list[Multirun]) -> list[RunKey]:
    """Every run an extension of the planned ``multiruns`` could add: each configuration and
    seed at each rate of :func:`roundlab.sweep.rates.ladder`. The sweep keeps their result files
    when it prunes results/ before it runs, so a resumed sweep finds them."""
    rates = ladder(profile.learning_rates, profile.rate_extensions)
    runs = {r for m in multiruns if not m.once for r in m.runs}
    return sorted({replace(r, learning_rate=lr) for r in runs for lr in rates}, key=str)


def _trials(keys: list[RunKey], results_dir: Path) -> list[Trial] | None:
    """The configuration's trials from the result files of ``keys`` (its runs so far), None when
    one is missing or unreadable."""
    by_rate: dict[float, list[results.RunResult]] = defaultdict(list)
    for key in keys:
        try:
            by_rate[key.learning_rate].append(result_reads.read(key.result_path(results_dir)))
        except (ValueError, OSError):
            return None
    return [Trial.of(rate, runs) for rate, runs in sorted(by_rate.items())]


def extensions(
    profile: Profile, multiruns: list[Multirun], results_dir: Path, round_: int
) -> list[Multirun]:
    """Round ``round_``'s multiruns, given the ``multiruns`` run so far (planned and earlier
    rounds, in order) and their result files; [] when no configuration extends."""
    if profile.rate_extensions == 0:
        return []
    runs: dict[RunKey, list[RunKey]] = defaultdict(list)
    family: dict[RunKey, Multirun] = {}
    for m in multiruns:
        if m.once:
            continue
        for key in m.runs:
            runs[_configuration(key)].append(key)
            family.setdefault(_configuration(key), m)
    wanted: dict[str, list[RunKey]] = defaultdict(list)
    for config, keys in runs.items():
        trials = _trials(keys, results_dir)
        if trials is None:
            continue
        rate = next_rate(trials, profile.learning_rates, profile.rate_extensions)
        if rate is None:
            continue
        replicates = sorted({(k.resample if k.resample is not None else -1, k.seed) for k in keys})
        wanted[root(family[config].family)] += [
            replace(config, learning_rate=rate, seed=s, resample=None if r < 0 else r)
            for r, s in replicates
        ]
    overrides = {root(m.family): m.overrides for m in multiruns}
    family_dir = f"{EXTENSIONS_DIR}/{round_}"
    return [
        Multirun(f"{family_dir}/{root}", narrowed(overrides[root], keys), tuple(keys), round_)
        for root, keys in wanted.items()
    ]


def all_rounds(profile: Profile, multiruns: list[Multirun], results_dir: Path) -> list[Multirun]:
    """Every round's multiruns that the result files in ``results_dir`` lead to, as the sweep
    planned them: a round whose runs left no files ends the recomputation there."""
    done, out = list(multiruns), []
    for round_ in range(1, 2 * profile.rate_extensions + 1):
        new = extensions(profile, done, results_dir, round_)
        if not new:
            break
        out += new
        done += new
    return out


# A sweep override's key -> the run's value it lists (activation parameters: by name).
_FIELDS = {
    "dataset": lambda k: k.dataset,
    "approach": lambda k: k.approach,
    "approach.method": lambda k: k.method,
    "activation": lambda k: k.activation,
    "trainer.learning_rate": lambda k: k.learning_rate,
    "seed": lambda k: k.seed,
    "dataset.resample": lambda k: k.resample,
}


def _field(key: str):
    if key.startswith("activation."):
        name = key.split(".", 1)[1]
        return lambda k: dict(k.params)[name]
    return _FIELDS.get(key)


def narrowed(
    overrides: tuple[str, ...], runs: tuple[RunKey, ...] | list[RunKey]
) -> tuple[str, ...]:
    """``overrides`` (a planned multirun's) with each swept key (dataset, approach, method,
    activation, its parameter, rate, seed) listing only the values ``runs`` take: the smallest
    cross product of those keys that holds every run. Other overrides, and a dataset set to one
    value, are kept."""
    out = []
    for o in overrides:
        key, _, given = o.partition("=")
        value = _field(key)
        # A dataset entry by value names its config there, not the dataset (dataset=csv for
        # the dataset fair), and is alone in its multirun: one dataset stays as written.
        if value is None or (key == "dataset" and "," not in given):
            out.append(o)
            continue
        values = sorted({value(r) for r in runs})
        text = ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in values)
        out.append(f"{key}={text}")
    return tuple(out)


def allow_list(m: Multirun) -> str:
    """The text of ``m``'s allow-list (``sweep.only``): its runs' result files, relative to
    results_dir."""
    return yaml.safe_dump([k.result_path(".").as_posix() for k in m.runs])
