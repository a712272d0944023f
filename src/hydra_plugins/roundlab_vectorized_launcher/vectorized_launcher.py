"""The launcher class Hydra instantiates for ``hydra/launcher=vectorized``. Hydra accepts
launchers only from the hydra_plugins package; the work is done by :mod:`roundlab.sweep.launcher`,
imported when a sweep launches (plugin discovery imports this module in every Hydra app)."""

from __future__ import annotations

from collections.abc import Sequence

from hydra.core.utils import JobReturn
from hydra.plugins.launcher import Launcher
from hydra.types import HydraContext, TaskFunction
from omegaconf import DictConfig

from roundlab.sweep.profile import DEFAULT_MAX_MEMBERS, check_max_members


class VectorizedLauncher(Launcher):
    # Every job's config is composed (or derived) before any job trains, so a bad override
    # stops the multirun before training: the sweeper need not compose them first.
    composes_every_job_first = True

    def __init__(self, max_members: int = DEFAULT_MAX_MEMBERS) -> None:
        super().__init__()
        # Refused here, before any job is composed or trained.
        self.max_members = check_max_members(max_members)
        self.config: DictConfig | None = None
        # this multirun's composed job configs by signature (roundlab.sweep.jobs.job_configs)
        self.composed: dict[tuple[str, ...], DictConfig] = {}
        self.task_function: TaskFunction | None = None
        self.hydra_context: HydraContext | None = None

    def setup(
        self, *, hydra_context: HydraContext, task_function: TaskFunction, config: DictConfig
    ) -> None:
        self.config = config
        self.hydra_context = hydra_context
        self.task_function = task_function

    def launch(
        self, job_overrides: Sequence[Sequence[str]], initial_job_idx: int
    ) -> Sequence[JobReturn]:
        from roundlab.sweep.launcher import launch

        return launch(self, job_overrides, initial_job_idx)

    def train_jobs(
        self,
        jobs: Sequence[DictConfig],
        cfgs: Sequence[DictConfig | None],
        groups: list[list[int]],
        alone: list[int],
    ) -> dict[int, JobReturn]:
        """Train the stacked ``groups`` and the jobs that train ``alone``, here."""
        from roundlab.sweep.launcher import in_process

        return in_process(self, jobs, cfgs, groups, alone)
