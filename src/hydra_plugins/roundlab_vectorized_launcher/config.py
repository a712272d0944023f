"""Registers roundlab's vectorised launchers and its sweeper with Hydra (imported by Hydra's
plugin discovery).

``conf/hydra/launcher/vectorized.yaml`` extends this schema, so ``hydra/launcher=vectorized``
selects it; ``vectorized_submitit_local.yaml`` and ``vectorized_submitit_slurm.yaml`` select
the variants that run each stacked group as a submitit job. The launcher classes are in
vectorized_launcher.py and submitit_launcher.py; their work in :mod:`roundlab.sweep.launcher`
and :mod:`roundlab.sweep.cluster`. The submitit keys carry hydra-submitit-launcher's names
(docs: its ``config.py``), so a SLURM user's overrides carry over.
"""

from dataclasses import dataclass, field
from typing import Any

from hydra._internal.core_plugins.basic_sweeper import BasicSweeperConf
from hydra.core.config_store import ConfigStore

from roundlab.sweep.profile import DEFAULT_MAX_MEMBERS


@dataclass
class VectorizedLauncherConf:
    _target_: str = (
        "hydra_plugins.roundlab_vectorized_launcher.vectorized_launcher.VectorizedLauncher"
    )
    # Members trained together at most; a larger group is split into chunks of this size.
    max_members: int = DEFAULT_MAX_MEMBERS


ConfigStore.instance().store(
    group="hydra/launcher",
    name="roundlab_vectorized",
    node=VectorizedLauncherConf,
    provider="roundlab",
)

_PLUGIN = "hydra_plugins.roundlab_vectorized_launcher.submitit_launcher"


@dataclass
class VectorizedSubmititConf:
    """Keys every submitit executor takes. One job is one process (a stacked group trains in
    one program), so there is no ``nodes`` or ``tasks_per_node``."""

    max_members: int = DEFAULT_MAX_MEMBERS
    # Each job's pickles and logs; %j is the job id. On a shared file system.
    submitit_folder: str = "${hydra.sweep.dir}/.submitit/%j"
    # The longest one job (one stacked group, recording included) may run, in minutes.
    timeout_min: int = 60
    cpus_per_task: int | None = None
    gpus_per_node: int | None = None
    mem_gb: int | None = None
    name: str = "${hydra.job.name}"
    stderr_to_stdout: bool = False


@dataclass
class VectorizedSubmititLocalConf(VectorizedSubmititConf):
    _target_: str = f"{_PLUGIN}.LocalVectorizedLauncher"


@dataclass
class VectorizedSubmititSlurmConf(VectorizedSubmititConf):
    """sbatch's options under hydra-submitit-launcher's names (``man sbatch`` says what each
    does); ``array_parallelism``: jobs of the array running at once; ``setup``: shell lines
    run before the job (``module load``, ``source venv/bin/activate``)."""

    _target_: str = f"{_PLUGIN}.SlurmVectorizedLauncher"
    partition: str | None = None
    qos: str | None = None
    account: str | None = None
    comment: str | None = None
    constraint: str | None = None
    exclude: str | None = None
    gres: str | None = None
    cpus_per_gpu: int | None = None
    gpus_per_task: int | None = None
    mem_per_gpu: str | None = None
    mem_per_cpu: str | None = None
    # Seconds before the time limit at which SLURM warns the job (USR2).
    signal_delay_s: int = 120
    additional_parameters: dict[str, Any] = field(default_factory=dict)
    array_parallelism: int = 256
    setup: list[str] | None = None


for _name, _node in (
    ("local", VectorizedSubmititLocalConf),
    ("slurm", VectorizedSubmititSlurmConf),
):
    ConfigStore.instance().store(
        group="hydra/launcher",
        name=f"roundlab_vectorized_submitit_{_name}",
        node=_node,
        provider="roundlab",
    )


@dataclass
class RoundlabSweeperConf(BasicSweeperConf):
    _target_: str = "hydra_plugins.roundlab_vectorized_launcher.sweeper.RoundlabSweeper"


ConfigStore.instance().store(
    group="hydra/sweeper", name="roundlab", node=RoundlabSweeperConf, provider="roundlab"
)
