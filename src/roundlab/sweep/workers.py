"""Few processes for many multiruns: a round's multiruns packed into at most ``processes``
worker multiruns, each one ``python -m roundlab.train -m sweep.jobs=<file>``.

Every multirun process pays TensorFlow's import and MLflow's set-up before it trains (about
20 s on 2 cores), and a profile has a multirun per family (plain approaches, ordinal, each
rounding activation, the references) per dataset: on a small dataset that start-up is most
of the sweep. A worker runs the jobs of several families in one process instead. Its jobs are
exactly those Hydra's basic sweeper expands the families' command lines into
(:func:`expand`), each followed by the profile's overrides as before, so every job composes the
same config; the vectorised launcher groups them as it would inside each family (a group never
spans families: its key holds the approach and activation).

Families are assigned whole, the costliest first, each to the worker with the least cost so far
(longest-processing-time first). A family costs the sum of its runs' :data:`RUN_COST` (about
seconds per run relative to a rounding activation's, from the result files' ``duration_s`` of
the default profile's sweep, averaged over its four datasets): classification and ordinal cost
more than the rounding activations, the negative control fails before training, and a
reference fit (statsmodels, LightGBM) costs a few runs. A family whose jobs the sweep listed
(:mod:`roundlab.sweep.decide`: the jobs not reused) brings those jobs.
"""

from __future__ import annotations

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.overrides_parser import OverridesParser

from roundlab import approaches as approach_catalogue
from roundlab.approaches import ROUNDING
from roundlab.results import NEGATIVE_CONTROLS
from roundlab.runs import RunKey
from roundlab.sweep.plan import Multirun

WORKER = "worker"
RUN_COST = {"classification": 1.25, "ordinal": 1.5}  # any other network run: 1
NEGATIVE_CONTROL_COST = 0.3
REFERENCE_COST = 2.0


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


def pack(multiruns: list[Multirun], processes: int, prefix: str = "") -> list[Multirun]:
    """At most ``processes`` workers holding the jobs of ``multiruns`` (one round's): worker
    ``<prefix>worker-<i>``, its ``jobs`` the families' expanded jobs, its ``runs`` theirs, in
    order. One multirun stays as it is."""
    if len(multiruns) <= 1:
        return list(multiruns)
    bins: list[list[Multirun]] = [[] for _ in range(min(processes, len(multiruns)))]
    load = [0.0] * len(bins)
    for m in sorted(multiruns, key=cost, reverse=True):
        i = load.index(min(load))
        bins[i].append(m)
        load[i] += cost(m)
    return [
        Multirun(
            f"{prefix}{WORKER}-{i + 1}",
            (),
            tuple(r for m in members for r in m.runs),
            members[0].round,
            jobs=tuple(tuple(job) for m in members for job in (m.jobs or expand(m.overrides))),
            families=tuple(m.family for m in members),
        )
        for i, members in enumerate(bins)
    ]
