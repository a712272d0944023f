"""The sweep decides before it starts: which of a round's planned jobs are reused, found in the
sweep's own process, without TensorFlow.

Each multirun's jobs are expanded as Hydra's basic sweeper would (:func:`workers.expand`) and
followed by the overrides its command line adds (the profile's, ``results_dir``,
``tracking.enabled``); a rate-extension multirun keeps only the jobs on its allow-list, as its
launcher would. A job whose result file a multirun would keep
(:func:`roundlab.sweep.resume.kept`: the same fingerprint, FINISHED or failed for a
deterministic reason, its model whole) is set aside. What is left goes to the multiruns, each
now listing exactly its jobs (``sweep.jobs``): a family with nothing left starts no process, and
a sweep whose every job is reused starts none.

Jobs that differ only in a member's own values (seed, learning rate, the activation's
parameter: :func:`roundlab.sweep.jobs.member_values`, as the launcher derives them) share one
composed and resolved config; a job's fingerprint is that config's tree with its values set,
each of the schema's type, so a plan of hundreds of jobs costs a few compositions.

A family whose configs cannot be composed here (an override only its multirun can read, such
as a config group added through ``hydra.searchpath``) is left whole to its multirun, which
reuses its jobs by the same rule or reports what is wrong: deciding here only ever saves a
process start, it never decides differently.
"""

from __future__ import annotations

import copy
import functools
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from omegaconf import DictConfig, OmegaConf, open_dict

from roundlab.run.config import compose, resolve
from roundlab.run.fingerprint import data_hash, fingerprint, of_tree, run_code_hash
from roundlab.runs import RunKey
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
    batch: list[Multirun], profile: Profile, results_dir: Path, bases: Bases | None = None
) -> Decision:
    """Set aside the reusable jobs of one round's multiruns ``batch``; ``bases``, kept by the
    sweep across its rounds, saves composing a config again."""
    bases = {} if bases is None else bases
    common = common_overrides(profile, results_dir)
    left, reused = [], []
    for m in batch:
        try:
            kept, set_aside = _split(m, common, results_dir, bases)
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
    m: Multirun, common: list[str], results_dir: Path, bases: Bases
) -> tuple[list[tuple[tuple[str, ...], RunKey]], list[Path]]:
    """``(kept, reused)``: the jobs of ``m`` still to run with their run keys, and the result
    files of those set aside."""
    parser = OverridesParser.create()
    shared = parser.parse_overrides(common)  # parsed once: Hydra's parser costs ~0.5 ms each
    wanted = {p.as_posix() for p in m.result_files(results_dir)}
    kept, reused = [], []
    for job in (tuple(job) for job in (m.jobs or expand(m.overrides))):
        overrides = [*job, *common]
        signature, values = member_values([*parser.parse_overrides(list(job)), *shared])
        base = _base(bases, signature, overrides)
        if not set(values) <= set(base.types):  # a member key its config lacks: compose it
            base, values = _base(bases, tuple(overrides), overrides), {}
        key = base.key(values)
        path = key.result_path(results_dir)
        if m.round and path.as_posix() not in wanted:
            continue  # off the extension's allow-list: its launcher drops it too
        if not base.resume or kept_result(path, lambda b=base, v=values: b.fingerprint(v)) is None:
            kept.append((job, key))
        else:
            reused.append(path)
    return kept, reused


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
        """The job's own resolved config, as its launcher derives it."""
        return _derived(self.raw, values)


def _derived(raw: DictConfig, values: dict[str, Any]) -> DictConfig:
    """``raw`` with the member ``values`` set (as :func:`roundlab.sweep.jobs.derive` sets
    them), resolved."""
    cfg = raw.copy()
    for key, value in values.items():
        OmegaConf.update(cfg, key, value, merge=False)
    return resolve(cfg)


def _with(tree: dict[str, Any], values: dict[str, Any], types: dict[str, type]) -> dict[str, Any]:
    """A copy of ``tree`` with the dotted keys of ``values`` set, each cast to its type."""
    tree = copy.deepcopy(tree)
    for dotted, value in values.items():
        *parents, leaf = dotted.split(".")
        functools.reduce(lambda n, k: n[k], parents, tree)[leaf] = types[dotted](value)
    return tree


def _base(bases: Bases, signature: tuple[str, ...], overrides: list[str]) -> _Base:
    """The base of the jobs with ``signature``, composed from the first job's ``overrides``."""
    if signature not in bases:
        raw = compose(overrides)
        with open_dict(raw):
            raw.pop("hydra", None)
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
        bases[signature] = _Base(
            raw,
            tree,
            RunKey.from_config(cfg),
            run_code_hash(cfg),
            data_hash(cfg.dataset),
            types,
            bool(cfg.sweep.resume),
            moved == _with(tree, probe, types),
        )
    return bases[signature]


def common_overrides(profile: Profile, results_dir: Path) -> list[str]:
    """What a multirun's command line adds to each job's own overrides and its config reads:
    the command without Hydra's settings (a profile's ``sweep.resume=false`` stays: such a
    multirun retrains every job)."""
    cmd = command(Multirun("", (), ()), profile, results_dir, Path("."))
    return [o for o in cmd[cmd.index("roundlab.train") + 2 :] if not o.startswith("hydra")]
