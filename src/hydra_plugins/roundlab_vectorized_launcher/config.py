"""Registers roundlab's vectorised launcher with Hydra (imported by Hydra's plugin discovery).

``conf/hydra/launcher/vectorized.yaml`` extends this schema, so ``hydra/launcher=vectorized``
selects it. The launcher itself lives in :mod:`roundlab.launcher`, imported only when used.
"""

from dataclasses import dataclass

from hydra.core.config_store import ConfigStore


@dataclass
class VectorizedLauncherConf:
    _target_: str = "roundlab.launcher.VectorizedLauncher"
    # Members trained together at most; a larger group is split into chunks of this size.
    max_members: int = 32


ConfigStore.instance().store(
    group="hydra/launcher",
    name="roundlab_vectorized",
    node=VectorizedLauncherConf,
    provider="roundlab",
)
