"""How many resamples each dataset of a profile has, as the sweep plans them
(:func:`roundlab.sweep.plan.plan`'s ``resamples_of``).

Read from ``conf/dataset/<name>.yaml`` with the profile's ``dataset_overrides``, without Hydra
and without TensorFlow (:func:`roundlab.data.read_config`; a partition pattern counts its files
under inputs/, as the generate stage does): the planner runs before any job, and the plan must
not wait for data/<name>/ to exist. The report never imports this module: it depends on
results/ only, so without the sweep's manifest it takes the resamples its result files show.
"""

from __future__ import annotations

from roundlab import data


def from_configs(name: str, overrides: tuple[str, ...], config: str | None = None) -> int:
    """The number of resamples of dataset ``name`` under ``overrides`` (``n_train=6000``),
    composed from the dataset config ``config`` (default: ``name``'s own)."""
    return data.resample_count(data.read_config(config or name, overrides))
