"""Registers roundlab's vectorised launcher and its sweeper with Hydra (imported by Hydra's
plugin discovery).

``conf/hydra/launcher/vectorized.yaml`` extends this schema, so ``hydra/launcher=vectorized``
selects it. The launcher class is in vectorized_launcher.py; its work in
:mod:`roundlab.sweep.launcher`.
"""

from dataclasses import dataclass

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


@dataclass
class RoundlabSweeperConf(BasicSweeperConf):
    _target_: str = "hydra_plugins.roundlab_vectorized_launcher.sweeper.RoundlabSweeper"


ConfigStore.instance().store(
    group="hydra/sweeper", name="roundlab", node=RoundlabSweeperConf, provider="roundlab"
)
