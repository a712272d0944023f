"""Few processes for many multiruns: the sweep's long-lived workers and the tasks they take.

Every multirun process pays TensorFlow's import and MLflow's set-up before it trains (about 5 s
on 2 cores: bench/worker_start.py), and a profile has a multirun per family (plain approaches,
ordinal, each rounding activation, the references) per dataset and per round of rate
extensions: on a small dataset that start-up was most of the sweep. The sweep instead starts at
most ``processes`` workers once (``worker-<i>``, each ``python -m roundlab.train -m
sweep.queue=<dir>``), and each round's families become tasks in the queue
(:mod:`roundlab.sweep.queue`), which a worker takes as soon as it is free. A task's jobs are
exactly those Hydra's basic sweeper expands the family's command line into (:func:`expand`; or
the jobs the sweep left to run, :mod:`roundlab.sweep.decide`), each followed by the worker's
command line, so every job composes the same config as before; the vectorised launcher groups
them as it would inside the family (a group never spans families: its key holds the approach
and activation).

Tasks are queued the costliest first (:func:`cost`), so the cheap ones fill the end of a round.
A family costs the sum of its runs' :data:`RUN_COST` (about seconds per run relative to a
rounding activation's, from the result files' ``duration_s`` of the default profile's sweep,
averaged over its four datasets): classification and ordinal cost more than the rounding
activations, the negative control fails before training, and a reference fit (statsmodels,
LightGBM) costs a few runs. The reference fits are queued before the rest all the same: their
cost is the least predictable (the ordered logit took 0.2 s on count and 9 s on digit_sum's
many classes, LightGBM 0.3 s to 1.9 s a run) and they train one at a time, never in a stacked
group that could be split, so taken last they left one worker fitting for up to 10 s while the
other had nothing left (digit_sum's sweep stage, 2 workers).
"""

from __future__ import annotations

from pathlib import Path

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser

from roundlab import approaches as approach_catalogue
from roundlab import paths
from roundlab.approaches import ROUNDING
from roundlab.results import NEGATIVE_CONTROLS
from roundlab.runs import RunKey
from roundlab.sweep import extend
from roundlab.sweep.jobs import member_values
from roundlab.sweep.plan import Multirun
from roundlab.sweep.queue import Task

WORKER = "worker"
RUN_COST = {"classification": 1.25, "ordinal": 1.5}  # any other network run: 1
NEGATIVE_CONTROL_COST = 0.3
REFERENCE_COST = 2.0
ALLOW_LISTS = "allow"  # in the queue directory: a rate-extension family's allow-list
CLUSTER_LAUNCHERS = "vectorized_submitit"  # the prefix of the launchers that submit jobs


def expand(overrides: tuple[str, ...]) -> list[list[str]]:
    """Each job's overrides of a multirun's ``overrides``, as Hydra's basic sweeper expands them
    (the cross product of every swept key, in its order)."""
    parsed = OverridesParser.create().parse_overrides(list(overrides))
    return [job for batch in BasicSweeper.split_arguments(parsed, None) for job in batch]


def cost(m: Multirun) -> float:
    """What a family costs to train, in rounding-activation runs."""
    return sum(_run_cost(r) for r in m.runs)


def _run_cost(run: RunKey) -> float:
    if approach_catalogue.get(run.approach).is_reference:
        return REFERENCE_COST
    if run.approach == ROUNDING and run.activation in NEGATIVE_CONTROLS:
        return NEGATIVE_CONTROL_COST
    return RUN_COST.get(run.approach, 1.0)


def tasks(
    multiruns: list[Multirun], queue_dir: Path, together: bool = False, workers: int = 1
) -> list[Task]:
    """The tasks of one round's ``multiruns`` (each with jobs left), the reference fits first,
    then the costliest first: one per family, but a family costing more than a ``workers``-th
    of the round's half (the last round's ordinal extensions, say) becomes a task per stacked
    group (:func:`_by_group`), so that it does not keep one worker busy while the others have
    nothing left; ``together``:
    one task for them all (a cluster launcher submits a batch's stacked groups at once, so one
    worker submits the whole round). A rate-extension family the sweep could not list job by
    job keeps its cross product and its allow-list (``sweep.only``, written under
    ``queue_dir``), as its own multirun did."""
    share = sum(cost(m) for m in multiruns) / (2 * workers)
    units = []
    for m in multiruns:
        jobs = [tuple(job) for job in (m.jobs or expand(m.overrides))]
        if m.round and not m.jobs:
            allow = queue_dir / ALLOW_LISTS / f"{m.family.replace('/', '_')}.yaml"
            paths.atomic_write(allow, extend.allow_list(m))
            jobs = [(*job, f"sweep.only={allow}") for job in jobs]
            units.append((m.once, cost(m), Task((m.family,), tuple(jobs), len(m.runs))))
        elif workers > 1 and not together and cost(m) > share:
            units += [(m.once, cost(m) * g.runs / len(jobs), g) for g in _by_group(m.family, jobs)]
        else:
            units.append((m.once, cost(m), Task((m.family,), tuple(jobs), len(m.runs))))
    out = [task for *_, task in sorted(units, key=lambda unit: unit[:2], reverse=True)]
    if together and out:
        families = tuple(f for task in out for f in task.families)
        jobs_ = tuple(job for task in out for job in task.jobs)
        return [Task(families, jobs_, sum(task.runs for task in out))]
    return out


def _by_group(family: str, jobs: list[tuple[str, ...]]) -> list[Task]:
    """A task per set of ``jobs`` that differ only in a member's own values (seed, learning
    rate, the activation's parameter: :func:`roundlab.sweep.jobs.member_values`), in the order
    of their first job; each task composes its config once, as the family would per set. Jobs
    that differ in more share a stacked program only when the difference is one grouping
    ignores (:func:`roundlab.sweep.grouping.group_key`: the objective, tracking, the sweep's
    settings, an activation where the approach uses none); a profile's family sets those alike
    for all its jobs, so this split costs no group of a planned sweep."""
    parser = OverridesParser.create()
    sets: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for job in jobs:
        signature, _ = member_values(parser.parse_overrides(list(job)))
        sets.setdefault(signature, []).append(job)
    return [Task((family,), tuple(group), len(group)) for group in sets.values()]
