"""The sweep decides before it starts: which of a round's planned jobs are reused, found in the
sweep's own process, without TensorFlow.

Each multirun's jobs are expanded as Hydra's basic sweeper would (:func:`workers.expand`) and
followed by the overrides its command line adds (the profile's, ``results_dir``,
``tracking.enabled``); a rate-extension multirun keeps only the jobs on its allow-list, as its
launcher would. A job whose result file a multirun would keep
(:func:`roundlab.sweep.resume.kept`: the same fingerprint, FINISHED or failed for a
deterministic reason, its model whole) is set aside. What is left goes to the multiruns, each
now listing exactly its jobs (:class:`~roundlab.sweep.plan.Multirun`'s ``jobs``, which the workers
take from the sweep's queue): a family with nothing left is queued for no worker, and a sweep
whose every job is reused starts none.

Jobs that differ only in a member's own values (seed, learning rate, the activation's
parameter: :func:`roundlab.sweep.jobs.member_values`, as the launcher derives them) share one
composed and resolved config; a job's fingerprint is that config's tree with its values set,
each of the schema's type, so a plan of hundreds of jobs costs a few compositions.

A family whose configs cannot be composed here (an override only its multirun can read, such
as a config group added through ``hydra.searchpath``) is left whole to its multirun, which
reuses its jobs by the same rule or reports what is wrong: deciding here only ever saves a
process start, it never decides differently.

A family none of whose planned result files exists (every family of a fresh sweep) goes whole
to its multirun without a composition: there is nothing to reuse, and composing its configs
only to find that out cost a fresh sweep seconds before any worker started.

A composition is kept between sweeps (:mod:`roundlab.sweep.compose_cache`): a resumed sweep
reads it instead of asking Hydra. A fresh composition is stored only when the config read back
from its stored text gives the same base (tree, run key, member types, whether it is
independent) and the same config for other member values: what the cache could lose (the
schema's node types) then changes nothing this module derives.
"""

from __future__ import annotations

import copy
import functools
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override
from omegaconf import DictConfig, OmegaConf, open_dict

from roundlab.run.config import compose, resolve
from roundlab.run.fingerprint import data_hash, fingerprint, of_tree, run_code_hash
from roundlab.runs import RunKey
from roundlab.sweep.compose_cache import ComposeCache, from_text, to_text
from roundlab.sweep.jobs import member_values
from roundlab.sweep.plan import Multirun, command
from roundlab.sweep.profile import Profile
from roundlab.sweep.resume import kept as kept_result
from roundlab.sweep.workers import expand

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Decision:
    """``left``: the multiruns that still have jobs to run, each listing them; ``reused``: the
    result files of the jobs set aside."""

    left: list[Multirun]
    reused: list[Path]


Bases = dict[tuple[str, ...], "_Base"]  # composed configs by signature, for one sweep


def decide(
    batch: list[Multirun],
    profile: Profile,
    results_dir: Path,
    bases: Bases | None = None,
    cache: ComposeCache | None = None,
) -> Decision:
    """Set aside the reusable jobs of one round's multiruns ``batch``; ``bases``, kept by the
    sweep across its rounds, saves composing a config again, and ``cache`` across sweeps."""
    bases = {} if bases is None else bases
    common = common_overrides(profile, results_dir)
    left, reused = [], []
    for m in batch:
        if not any(path.is_file() for path in m.result_files(results_dir)):
            # Nothing of it on disk (a fresh sweep), so nothing to reuse: it goes whole, with
            # no composition. The sweep removed every result file outside its plan before
            # deciding, so a job's file could be nowhere else.
            left.append(m)
            continue
        try:
            kept, set_aside = _split(m, common, results_dir, bases, cache)
        except Exception as err:  # its multirun composes it again, and says what is wrong
            log.info("%s: jobs left to the multirun (%s)", m.family, err)
            left.append(m)
            continue
        reused += set_aside
        if kept:
            jobs, runs = zip(*kept, strict=True)
            left.append(replace(m, overrides=(), runs=runs, jobs=jobs))
    return Decision(left, reused)


def _split(
    m: Multirun, common: list[str], results_dir: Path, bases: Bases, cache: ComposeCache | None
) -> tuple[list[tuple[tuple[str, ...], RunKey]], list[Path]]:
    """``(kept, reused)``: the jobs of ``m`` still to run with their run keys, and the result
    files of those set aside."""
    shared = [_parsed(o) for o in common]
    wanted = {p.as_posix() for p in m.result_files(results_dir)}
    kept, reused = [], []
    for job in (tuple(job) for job in (m.jobs or expand(m.overrides))):
        overrides = [*job, *common]
        signature, values = member_values([*map(_parsed, job), *shared])
        base = _base(bases, signature, overrides, cache)
        if not set(values) <= set(base.types):  # a member key its config lacks: compose it
            base, values = _base(bases, tuple(overrides), overrides, cache), {}
        key = base.key(values)
        path = key.result_path(results_dir)
        if m.round and path.as_posix() not in wanted:
            continue  # off the extension's allow-list: its launcher drops it too
        if not base.resume or kept_result(path, lambda b=base, v=values: b.fingerprint(v)) is None:
            kept.append((job, key))
        else:
            reused.append(path)
    return kept, reused


_PARSER = OverridesParser.create()


@functools.lru_cache(maxsize=4096)
def _parsed(override: str) -> Override:
    """One override parsed by Hydra's grammar (~0.5 ms each): a plan repeats the same few
    hundred across its thousands of jobs. Nothing here changes the parsed object."""
    return _PARSER.parse_overrides([override])[0]


@dataclass(frozen=True)
class _Base:
    """One composed config (``raw``, unresolved) and its resolved ``tree``, with what every job
    derived from it shares: its run key, code and data hashes, ``types`` of the member keys it
    holds, whether a multirun would reuse at all (``sweep.resume``), and whether no other value
    depends on a member value (``independent``: no ``dataset.seed=${seed}``)."""

    raw: DictConfig
    tree: dict[str, Any]
    run: RunKey
    code: str
    data: str
    types: dict[str, type]
    resume: bool
    independent: bool

    def key(self, values: dict[str, Any]) -> RunKey:
        """The run of the job with the member ``values`` (its seed, rate, parameter)."""
        if not self.independent:
            return RunKey.from_config(self.config(values))
        params = tuple((k, float(values.get(f"activation.{k}", v))) for k, v in self.run.params)
        return replace(
            self.run,
            seed=int(values.get("seed", self.run.seed)),
            learning_rate=float(values.get("trainer.learning_rate", self.run.learning_rate)),
            params=params,
        )

    def fingerprint(self, values: dict[str, Any]) -> str:
        """The job's fingerprint: the tree with ``values`` set, each of its own type (the
        schema's: ``activation.steepness=5`` is the float 5.0); when other values depend on
        them, its own resolved config's, data hash included."""
        if not self.independent:
            return fingerprint(self.config(values))
        return of_tree(_with(self.tree, values, self.types), self.code, self.data)

    def config(self, values: dict[str, Any]) -> DictConfig:
        """The job's own resolved config, as its launcher derives it: each value of its
        schema's type, as a typed node would take it (a stored ``raw`` has no node types), and
        a value no type holds exactly is refused (its multirun says what is wrong)."""
        return _derived(self.raw, {k: _exact(self.types[k], v) for k, v in values.items()})


def _derived(raw: DictConfig, values: dict[str, Any]) -> DictConfig:
    """``raw`` with the member ``values`` set (as :func:`roundlab.sweep.jobs.derive` sets
    them), resolved."""
    cfg = raw.copy()
    for key, value in values.items():
        OmegaConf.update(cfg, key, value, merge=False)
    return resolve(cfg)


def _exact(kind: type, value: Any) -> Any:
    if isinstance(value, bool) or kind(value) != value:
        raise ValueError(f"a member value must be a {kind.__name__}. Received: value={value!r}")
    return kind(value)


def _with(tree: dict[str, Any], values: dict[str, Any], types: dict[str, type]) -> dict[str, Any]:
    """A copy of ``tree`` with the dotted keys of ``values`` set, each cast to its type."""
    tree = copy.deepcopy(tree)
    for dotted, value in values.items():
        *parents, leaf = dotted.split(".")
        functools.reduce(lambda n, k: n[k], parents, tree)[leaf] = types[dotted](value)
    return tree


def _base(
    bases: Bases, signature: tuple[str, ...], overrides: list[str], cache: ComposeCache | None
) -> _Base:
    """The base of the jobs with ``signature``, composed from the first job's ``overrides``
    (or read from ``cache``)."""
    if signature not in bases:
        raw = None if cache is None else cache.lookup(overrides)
        if raw is not None:
            bases[signature] = _made(raw)[0]
            return bases[signature]
        before = None if cache is None else cache.current()
        raw = compose(overrides)
        with open_dict(raw):
            raw.pop("hydra", None)
        base, moved = _made(raw)
        if cache is not None:
            stored = from_text(to_text(raw))
            again, moved_again = _made(stored)
            if _same(base, again) and _typed(moved) == _typed(moved_again):
                cache.store(overrides, raw, before)
        bases[signature] = base
    return bases[signature]


def _made(raw: DictConfig) -> tuple[_Base, dict[str, Any]]:
    """The base of the composed config ``raw``, and its config resolved with other member
    values (the probe that tells whether anything else depends on them)."""
    cfg = resolve(raw)
    tree = OmegaConf.to_container(cfg, resolve=True)
    members = ("seed", "trainer.learning_rate", *(f"activation.{k}" for k in cfg.activation))
    types = {
        key: type(found)
        for key in members
        if isinstance(found := OmegaConf.select(cfg, key), int | float)
        and not isinstance(found, bool)
    }
    # Other member values, set the launcher's way and resolved: does anything else move?
    probe = {key: kind(OmegaConf.select(cfg, key) * 3 + 7) for key, kind in types.items()}
    moved = OmegaConf.to_container(_derived(raw, probe), resolve=True)
    base = _Base(
        raw,
        tree,
        RunKey.from_config(cfg),
        run_code_hash(cfg),
        data_hash(cfg.dataset),
        types,
        bool(cfg.sweep.resume),
        moved == _with(tree, probe, types),
    )
    return base, moved


def _same(a: _Base, b: _Base) -> bool:
    """Everything but the config objects themselves, with the types of every leaf."""
    return (a.run, a.code, a.data, a.types, a.resume, a.independent) == (
        b.run,
        b.code,
        b.data,
        b.types,
        b.resume,
        b.independent,
    ) and _typed(a.tree) == _typed(b.tree)


def _typed(tree: Any) -> Any:
    """``tree`` with each leaf paired with its type: ``5 == 5.0`` is not the same config."""
    if isinstance(tree, dict):
        return {k: _typed(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [_typed(v) for v in tree]
    return (type(tree), tree)


def common_overrides(profile: Profile, results_dir: Path) -> list[str]:
    """What a multirun's command line adds to each job's own overrides and its config reads:
    the command without Hydra's settings (a profile's ``sweep.resume=false`` stays: such a
    multirun retrains every job)."""
    cmd = command(Multirun("", (), ()), profile, results_dir, Path("."))
    return [o for o in cmd[cmd.index("roundlab.train") + 2 :] if not o.startswith("hydra")]
