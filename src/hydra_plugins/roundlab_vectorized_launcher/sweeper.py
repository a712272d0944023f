"""The sweeper of roundlab's multiruns (``hydra/sweeper=roundlab``, the default in
conf/config.yaml): Hydra's basic sweeper, without composing every job twice, and with job lists.

Before launching a batch, the basic sweeper composes every job's config to catch a bad override
before any job runs; the launcher then composes them again. The vectorised launcher composes
(or derives) every job's config before it trains any, so with it the sweeper's own pass is
skipped: it cost about a third of a second per job, more than training a stacked member. With
any other launcher, which composes a job only when it runs it, the batch is checked as before.

``sweep.jobs=<file>`` (a YAML list of jobs, each a list of overrides) runs exactly those jobs,
each followed by the command line's other overrides, instead of the command line's cross
product.

``sweep.queue=<dir>`` makes the multirun one of the sweep's workers
(:mod:`roundlab.sweep.workers`): its batches are the tasks it takes from the queue
(:class:`roundlab.sweep.queue.Worker`), one after another as the sweep queues them, each job
followed by the command line's overrides, until the sweep says stop.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from pathlib import Path

from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.override_parser.types import Override
from hydra.errors import CompactHydraException

from roundlab.errors import ConfigError
from roundlab.sweep import job_list, queue
from roundlab.sweep.queue import Worker

JOBS_KEY = job_list.KEY
# A worker's collector thresholds (Python's: 700, 10, 10). Its job configs and traced graphs are
# hundreds of thousands of small objects, and at the default thresholds the collector walked
# them all about 35 times per worker and stage (gc.callbacks measured 6-7 s of its CPU); Keras'
# clear_session still collects before each stacked group, freeing the last group's graphs.
WORKER_GC_THRESHOLDS = (20_000, 20, 20)


class RoundlabSweeper(BasicSweeper):
    worker: Worker | None = None  # with sweep.queue: the tasks this multirun takes

    def is_done(self) -> bool:
        if self.worker is None:
            return super().is_done()
        return not self.worker.take()

    def get_job_batch(self) -> list[list[str]]:
        if self.worker is None:
            return super().get_job_batch()
        return self.worker.batch()

    def validate_batch_is_legal(self, batch: Sequence[Sequence[str]]) -> None:
        if getattr(self.launcher, "composes_every_job_first", False):
            return
        super().validate_batch_is_legal(batch)

    def split_arguments(  # an instance method where the basic sweeper's is static: same call
        self, overrides: list[Override], max_batch_size: int | None
    ) -> list[list[list[str]]]:
        queued = [o for o in overrides if o.get_key_element() == queue.KEY]
        if queued and queued[-1].value() is not None:
            self._refuse_sweeping(overrides, queue.KEY)
            name = Path(str(self.config.hydra.sweep.dir)).name
            common = [o.input_line for o in overrides]
            self.worker = Worker(Path(str(queued[-1].value())), name, common)
            _freeze_the_process_objects()
            gc.set_threshold(*WORKER_GC_THRESHOLDS)
            # here, not at the top: plugin discovery imports this module in every Hydra app,
            # the sweep's own TensorFlow-free process included
            from roundlab.sweep import networks

            networks.keep_between_groups()
            return []
        listed = [o for o in overrides if o.get_key_element() == JOBS_KEY]
        if not listed or listed[-1].value() is None:
            return BasicSweeper.split_arguments(overrides, max_batch_size)
        self._refuse_sweeping(overrides, JOBS_KEY)
        try:
            jobs = job_list.read(Path(str(listed[-1].value())))
        except ConfigError as err:
            raise CompactHydraException(str(err)) from None
        common = [o.input_line for o in overrides]
        batch = [[*job, *common] for job in jobs]
        if max_batch_size is None:
            return [batch]
        return [batch[i : i + max_batch_size] for i in range(0, len(batch), max_batch_size)]

    @staticmethod
    def _refuse_sweeping(overrides: list[Override], key: str) -> None:
        swept = [o.input_line for o in overrides if o.is_sweep_override()]
        if swept:
            raise CompactHydraException(
                f"{key} lists every job: the command line must not sweep as well. Received: {swept}"
            )


def _freeze_the_process_objects() -> None:
    """Move what a worker holds before its first task (TensorFlow's, Keras' and MLflow's
    modules, the MLflow client, Hydra's config: about 600,000 objects, alive as long as the
    process) out of the garbage collector's reach.

    Keras' ``clear_session`` collects garbage before each stacked group, so the previous one's
    graphs are freed now rather than whenever Python gets to them; the collection walked every
    one of those objects, 0.3 s a group. Frozen objects are still freed when their last
    reference goes; only a cycle among them never would be, and these live until the worker
    exits. Not collected first: a worker started by the sweep made no full collection while it
    started (roundlab/train.py), and collecting now would walk them all once more (0.4-0.5 s)
    for the few thousand objects of cyclic garbage its start left (its resident set at this
    point: 794 MB, against 793 MB with that collection made). Done here, in a worker's own
    process, not in a run's set-up: a notebook or a test process calling ``train`` may hold
    cycles of its own that must stay collectable.
    """
    gc.freeze()
