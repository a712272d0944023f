"""A sweep's rounds: its planned multiruns, then each round of rate extensions, planned from the
result files the round before wrote (:mod:`roundlab.sweep.extend`). Each round is decided in
the sweep's process (:mod:`roundlab.sweep.decide`: the reusable jobs set aside) and what is left
goes to the task queue (:mod:`roundlab.sweep.queue`) as one task per family, the costliest
first (:func:`roundlab.sweep.workers.tasks`); a round with nothing to train goes straight on to
the next. The manifests list every round's runs (:mod:`roundlab.sweep.manifest`).
"""

from __future__ import annotations

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
    job aside. ``names``: the queued tasks of the round under way; ``log``: one entry per round
    (its runs, how many were reused before any worker, its tasks). ``cache``: the compositions
    kept between sweeps (:mod:`roundlab.sweep.compose_cache`)."""

    profile: Profile
    results_dir: Path
    queue_dir: Path
    records: dict[str, Any]
    progress: Progress
    fresh: bool
    batch: list[Multirun]
    done: list[Multirun] = field(default_factory=list)
    reused: list[Path] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    bases: Bases = field(default_factory=dict)
    cache: ComposeCache | None = None

    def settle(self) -> bool:
        """Decide rounds from the current one on until one has jobs to run, and queue them
        (True), or until no round is left (False)."""
        while self.batch:
            n, left = self.batch[0].round, self.batch
            planned = sum(len(m.runs) for m in self.batch)
            if not self.fresh:
                decision = decide(
                    self.batch, self.profile, self.results_dir, self.bases, self.cache
                )
                left, self.reused = decision.left, self.reused + decision.reused
                self.progress.grow(-len(decision.reused))
                if decision.reused:
                    self.progress.write(
                        f"sweep{f' round {n}' if n else ''}: {len(decision.reused)} of {planned} "
                        f"runs reused (same fingerprint), {sum(len(m.runs) for m in left)} to train"
                    )
            together = self.profile.launcher.startswith(workers.CLUSTER_LAUNCHERS)
            tasks = workers.tasks(left, self.queue_dir, together, self.profile.processes)
            self.done += self.batch
            reused = planned - sum(len(m.runs) for m in left)
            self.log.append({"round": n, "runs": planned, "reused": reused, "tasks": len(tasks)})
            if tasks:
                self.names = queue.enqueue(self.queue_dir, n, tasks)
                return True
            self._plan_next(n + 1)
        return False

    def advance(self) -> bool:
        """Once the round under way ended: plan the next rounds, queue the first with jobs to run
        (True), or say no round is left (False)."""
        self._plan_next(self.done[-1].round + 1)
        return self.settle()

    def _plan_next(self, n: int) -> None:
        self.batch = extend.extensions(self.profile, self.done, self.results_dir, n)
        if self.batch:
            runs = sum(len(m.runs) for m in self.batch)
            manifest.add(self.records, self.batch, self.results_dir)
            self.progress.grow(runs)
            self.progress.label = f"sweep round {n}"
            self.progress.write(
                f"sweep round {n}: {runs} extension runs (the next rate beyond an edge its "
                f"configuration chose) in {len(self.batch)} families"
            )
