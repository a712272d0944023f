"""The sweep's task queue: a directory its long-lived workers take tasks from.

The sweep (:mod:`roundlab.sweep.runner`) starts at most ``processes`` workers once, each a
``python -m roundlab.train -m sweep.queue=<dir>`` whose sweeper takes one task after another
(``hydra_plugins.roundlab_vectorized_launcher.sweeper``), and puts each round's tasks in the
queue as it plans the round: the planned multiruns first, then every round of rate extensions,
planned from the result files the round before wrote. A worker therefore pays TensorFlow's
import and MLflow's set-up once per sweep, not once per round, and a worker that is free takes
the next task, so a costly family does not leave the other workers idle while it trains.

Layout of ``<dir>``::

    pending/<round>-<rank>-<family>.yaml   a task: its families, runs and jobs (lists of overrides)
    claimed/<worker>/<task>.yaml            taken by that worker (an atomic rename: once only)
    done/<task>.yaml                        its jobs ran (the worker writes it when it takes
                                            its next task, or stops)
    STOP                                    no task will come: workers stop once their task ends

Tasks are taken the deepest round first (a family's later round is the end of its chain of
rounds, :mod:`roundlab.sweep.rounds`), and within a round in the order they were queued, each
batch the costliest first (the rank), so the cheap ones of a batch are taken last. Nothing here
imports TensorFlow: the sweep itself plans and waits.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from roundlab import paths
from roundlab.sweep.extend import EXTENSIONS_DIR

log = logging.getLogger(__name__)

PENDING, CLAIMED, DONE, STOP = "pending", "claimed", "done", "STOP"
KEY = "sweep.queue"  # the override that makes a multirun a worker of the queue it names
POLL_S = 0.2  # how often an idle worker looks for a task
_ROUND = re.compile(r"(\d+)-")  # a task's name starts with its round


@dataclass(frozen=True)
class Task:
    """Jobs for a worker to run as one multirun batch, each its overrides, then the worker's
    command line: those of ``families`` (one, or a cluster launcher's whole round), ``runs`` of
    them planned (a job off an allow-list is dropped, not run)."""

    families: tuple[str, ...]
    jobs: tuple[tuple[str, ...], ...]
    runs: int


def enqueue(queue: Path, round_: int, tasks: Sequence[Task]) -> list[str]:
    """Put ``tasks`` (costliest first) in the queue as round ``round_``; their names."""
    names = []
    for rank, task in enumerate(tasks):
        name = f"{round_:03d}-{rank:04d}-{task.families[0].replace('/', '_')}.yaml"
        body = {
            "families": list(task.families),
            "runs": task.runs,
            "jobs": [list(job) for job in task.jobs],
        }
        paths.atomic_write(queue / PENDING / name, yaml.safe_dump(body, sort_keys=False))
        names.append(name)
    return names


def finished(queue: Path, names: Sequence[str]) -> bool:
    """Every one of the tasks ``names`` ran."""
    return all((queue / DONE / name).is_file() for name in names)


def waiting(queue: Path) -> bool:
    """Some task is still to be taken."""
    return bool(_pending(queue))


def _pending(queue: Path) -> list[Path]:
    """The tasks to take, in order: files named ``<round>-…`` only, so not the temporary files
    of tasks being written (:func:`roundlab.paths.atomic_path` names them ``.<name>.tmp-…``,
    which ``*.yaml`` matches too: a worker that took one would run a half-written task, and the
    write would fail), nor any other file left there."""
    tasks = [p for p in (queue / PENDING).glob("*.yaml") if _ROUND.match(p.name)]
    return sorted(tasks, key=lambda p: (-int(_ROUND.match(p.name)[1]), p.name))


def _family(name: str) -> str:
    """The planned family of the task file ``name`` (``<round>-<rank>-<family>.yaml``, a rate
    extension's family ``rate_extensions/<round>/<planned family>`` with its slashes as
    underscores)."""
    family = name.split("-", 2)[-1].removesuffix(".yaml")
    return re.sub(rf"^{EXTENSIONS_DIR}_\d+_", "", family)


def stop(queue: Path) -> None:
    """No task will come: each worker stops once its task ends."""
    paths.atomic_write(queue / STOP, "")


def taken(queue: Path, worker: str) -> list[dict[str, Any]]:
    """The tasks ``worker`` took, in the order of their names (round, then rank)."""
    files = sorted((queue / CLAIMED / worker).glob("*.yaml"))
    return [yaml.safe_load(p.read_text()) for p in files]


class Worker:
    """A worker's side: :meth:`take` the next task (waiting for one), :meth:`batch` its jobs.

    A worker stops waiting when the process that started it (the sweep) is gone: the sweep's
    death signal (:mod:`roundlab.sweep.children`) can be lost, and no task or STOP would ever
    come."""

    def __init__(self, queue: Path, name: str, common: Sequence[str]) -> None:
        self.queue, self.name, self.common = Path(queue), name, list(common)
        self.current: str | None = None
        self.jobs: list[list[str]] = []
        self.families: set[str] = set()  # the planned families of the tasks it took
        self.parent = os.getppid()

    def take(self) -> bool:
        """Mark the task in hand done and take the next one, waiting while the queue is empty;
        False once the sweep said stop."""
        if self.current is not None:
            paths.atomic_write(self.queue / DONE / self.current, f"{self.name}\n")
            self.current = None
        mine = self.queue / CLAIMED / self.name
        mine.mkdir(parents=True, exist_ok=True)
        while not (self.queue / STOP).exists():
            # before taking a task, not only when none is left: an orphan must not train the
            # dead sweep's tasks, nor those the next sweep queues in the same directory
            if os.getppid() != self.parent:
                log.warning("%s: the sweep that started this worker is gone; stopping", self.name)
                return False
            for task in self._in_turn(_pending(self.queue)):
                try:
                    os.rename(task, mine / task.name)  # atomic: one worker gets it
                except FileNotFoundError:
                    continue  # another worker took it first
                body = yaml.safe_load((mine / task.name).read_text())
                self.current = task.name
                self.families.add(_family(task.name))
                self.jobs = [[*map(str, job), *self.common] for job in body["jobs"]]
                return True
            time.sleep(POLL_S)
        return False

    def _in_turn(self, tasks: list[Path]) -> list[Path]:
        """``tasks`` in the order to try them: the deepest round's tasks of a family this
        worker trained before first (its networks and traced programs are kept,
        :mod:`roundlab.sweep.networks`), then the rest in queue order."""
        if not tasks:
            return tasks
        deepest = _ROUND.match(tasks[0].name)[1]
        mine = [
            t
            for t in tasks
            if _ROUND.match(t.name)[1] == deepest and _family(t.name) in self.families
        ]
        return mine + [t for t in tasks if t not in mine]

    def batch(self) -> list[list[str]]:
        """The jobs of the task in hand, each followed by the command line's overrides."""
        return self.jobs
