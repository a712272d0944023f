"""How many resamples each dataset of a profile has, as the sweep plans them
(:func:`roundlab.sweep.plan.plan`'s ``resamples_of``).

Read from ``conf/dataset/<name>.yaml`` with the profile's ``dataset_overrides``, without Hydra
and without TensorFlow (:func:`roundlab.data.read_config`; a partition pattern counts its files
under inputs/, as the generate stage does): the planner runs before any job, and the plan must
not wait for data/<name>/ to exist. The report never imports this module: it depends on
results/ only, so without the sweep's manifest it takes the resamples its result files show.
"""

from __future__ import annotations

from omegaconf.errors import OmegaConfBaseException

from roundlab import data
from roundlab.errors import ConfigError


def from_configs(name: str, overrides: tuple[str, ...], config: str | None = None) -> int:
    """The number of resamples of dataset ``name`` under ``overrides`` (``n_train=6000``),
    composed from the dataset config ``config`` (default: ``name``'s own). A key its config
    does not have, or a value of the wrong type, is a ConfigError naming the dataset."""
    try:
        return data.resample_count(data.read_config(config or name, overrides))
    except (OmegaConfBaseException, FileNotFoundError) as err:
        what = str(err).splitlines()[0]
        raise ConfigError(
            f"params.yaml datasets.{name} must set only keys of the dataset config "
            f"{config or name}, with values of their types. Received: {what}"
        ) from None
