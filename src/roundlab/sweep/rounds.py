"""A sweep's rounds: its planned multiruns, then each family's rounds of rate extensions,
planned from the result files its round before wrote (:mod:`roundlab.sweep.extend`). Each
batch is decided in the sweep's process (:mod:`roundlab.sweep.decide`: the reusable jobs set
aside) and what is left goes to the task queue (:mod:`roundlab.sweep.queue`), the costliest
first (:func:`roundlab.sweep.workers.tasks`).

A configuration's extension depends on its own runs alone, so each family goes on by itself:
as soon as the tasks of a family's round ended, its next round is planned and queued, while
the other families' tasks still run (workers take the deepest round first, the end of the
longest chain). A family whose round has nothing to train goes straight on to its next. The
manifests list every round's runs (:mod:`roundlab.sweep.manifest`), and the result is the
rounds the barrier between rounds would have given: each family's round ``n`` is planned from
the same files.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roundlab.sweep import extend, manifest, queue, workers
from roundlab.sweep.compose_cache import ComposeCache
from roundlab.sweep.decide import Bases, decide
from roundlab.sweep.plan import Multirun
from roundlab.sweep.profile import Profile
from roundlab.sweep.progress import Progress


@dataclass
class Rounds:
    """The rounds of one sweep, from ``batch`` (its planned multiruns) on. ``fresh``: set no
    job aside. ``running``: per family (its planned multirun's name) the queued tasks of its
    round under way; ``log``: one entry per round (its runs, how many were reused before any
    worker, its tasks), summed over the families. ``cache``: the compositions kept between
    sweeps (:mod:`roundlab.sweep.compose_cache`)."""

    profile: Profile
    results_dir: Path
    queue_dir: Path
    records: dict[str, Any]
    progress: Progress
    fresh: bool
    batch: list[Multirun]
    done: list[Multirun] = field(default_factory=list)
    reused: list[Path] = field(default_factory=list)
    running: dict[str, list[str]] = field(default_factory=dict)
    extended: list[Multirun] = field(default_factory=list)  # every round's, as planned
    log: list[dict[str, Any]] = field(default_factory=list)
    bases: Bases = field(default_factory=dict)
    cache: ComposeCache | None = None

    @property
    def queued(self) -> int:
        """How many tasks are queued or running."""
        return sum(len(names) for names in self.running.values())

    def settle(self) -> bool:
        """Decide the planned multiruns (and the next rounds of the families with nothing to
        train) and queue what is left: True when some task is queued."""
        self._queue(self.batch)
        return bool(self.running)

    def advance(self) -> bool:
        """Plan and queue the next round of each family whose tasks all ended; True while some
        task is queued or running, False once no round is left."""
        ended = [f for f, names in self.running.items() if queue.finished(self.queue_dir, names)]
        for family in ended:
            del self.running[family]
        if ended:
            self._queue(self._next(ended))
        return bool(self.running)

    def _queue(self, batch: list[Multirun]) -> None:
        """Decide ``batch`` and queue its tasks, round by round; a family left with nothing to
        train is planned on until it has, or has no round left."""
        while batch:
            by_round: dict[int, list[Multirun]] = defaultdict(list)
            for m in batch:
                by_round[m.round].append(m)
            idle = []
            for n, ms in sorted(by_round.items()):
                queued = self._decide_and_queue(n, ms)
                idle += [_family(m) for m in ms if _family(m) not in queued]
            batch = self._next(idle)

    def _decide_and_queue(self, n: int, batch: list[Multirun]) -> set[str]:
        """The families of round ``n``'s ``batch`` that got a task."""
        planned = sum(len(m.runs) for m in batch)
        left = batch
        if not self.fresh:
            decision = decide(batch, self.profile, self.results_dir, self.bases, self.cache)
            left, self.reused = decision.left, self.reused + decision.reused
            self.progress.grow(-len(decision.reused))
            if decision.reused:
                self.progress.write(
                    f"sweep{f' round {n}' if n else ''}: {len(decision.reused)} of {planned} "
                    f"runs reused (same fingerprint), {sum(len(m.runs) for m in left)} to train"
                )
        together = self.profile.launcher.startswith(workers.CLUSTER_LAUNCHERS)
        tasks = workers.tasks(left, self.queue_dir, together, self.profile.processes)
        self.done += batch
        self._count(n, planned, planned - sum(len(m.runs) for m in left), len(tasks))
        queued: set[str] = set()
        for name, task in zip(queue.enqueue(self.queue_dir, n, tasks), tasks, strict=True):
            for family in {extend.root(f) for f in task.families}:
                self.running.setdefault(family, []).append(name)
                queued.add(family)
        return queued

    def _count(self, n: int, runs: int, reused: int, tasks: int) -> None:
        entry = next((e for e in self.log if e["round"] == n), None)
        if entry is None:
            entry = {"round": n, "runs": 0, "reused": 0, "tasks": 0}
            self.log.append(entry)
            self.log.sort(key=lambda e: e["round"])
        entry["runs"] += runs
        entry["reused"] += reused
        entry["tasks"] += tasks

    def _next(self, families: list[str]) -> list[Multirun]:
        """The next round of each of ``families``, from the result files their rounds wrote."""
        batch = []
        for family in dict.fromkeys(families):
            own = [m for m in self.done if _family(m) == family]
            n = max(m.round for m in own) + 1
            batch += extend.extensions(self.profile, own, self.results_dir, n)
        if batch:
            runs = sum(len(m.runs) for m in batch)
            self.extended += batch
            manifest.replan(self.records, self._in_plan_order(), self.results_dir)
            self.progress.grow(runs)
            for n in sorted({m.round for m in batch}):  # rounds overlap: the label stays
                ms = [m for m in batch if m.round == n]
                self.progress.write(
                    f"sweep round {n}: {sum(len(m.runs) for m in ms)} extension runs (the next "
                    f"rate beyond an edge its configuration chose) in {_families(ms)}"
                )
        return batch

    def _in_plan_order(self) -> list[Multirun]:
        """The planned multiruns, then the extensions by round and by their family's place in
        the plan: one order whichever family's round ended first."""
        place = {_family(m): i for i, m in reversed(list(enumerate(self.batch)))}
        later = sorted(self.extended, key=lambda m: (m.round, place[_family(m)], m.family))
        return [*self.batch, *later]


def _family(m: Multirun) -> str:
    return extend.root(m.family)


def _families(ms: list[Multirun]) -> str:
    names = [_family(m) for m in ms]
    return names[0] if len(names) == 1 else f"{len(names)} families"
