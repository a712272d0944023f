"""The launcher classes Hydra instantiates for ``hydra/launcher=vectorized_submitit_local`` and
``vectorized_submitit_slurm``: the vectorised launcher whose stacked groups (and jobs that train
alone) run as submitit jobs, :mod:`roundlab.sweep.cluster` doing the work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hydra.core.utils import JobReturn
from omegaconf import DictConfig, OmegaConf

from hydra_plugins.roundlab_vectorized_launcher.vectorized_launcher import VectorizedLauncher
from roundlab.sweep.profile import DEFAULT_MAX_MEMBERS


class SubmititVectorizedLauncher(VectorizedLauncher):
    """``params``: the executor's keys (timeout_min, partition, ...) as the config gives them;
    ``submitit_folder``: where submitit keeps each job's pickles and logs."""

    cluster = "abstract"

    def __init__(
        self,
        submitit_folder: str,
        max_members: int = DEFAULT_MAX_MEMBERS,
        **params: Any,
    ) -> None:
        super().__init__(max_members)
        self.submitit_folder = submitit_folder
        self.params = {
            k: OmegaConf.to_container(v, resolve=True) if OmegaConf.is_config(v) else v
            for k, v in params.items()
        }

    def train_jobs(
        self,
        jobs: Sequence[DictConfig],
        cfgs: Sequence[DictConfig | None],
        groups: list[list[int]],
        alone: list[int],
    ) -> dict[int, JobReturn]:
        """Submit each stacked group, and each job that trains alone, as one job; wait for all."""
        from roundlab.sweep.cluster import launch_units

        return launch_units(self, jobs, cfgs, groups, alone)


class LocalVectorizedLauncher(SubmititVectorizedLauncher):
    cluster = "local"


class SlurmVectorizedLauncher(SubmititVectorizedLauncher):
    cluster = "slurm"
