"""Integer-labelled datasets: generators, the on-disk format, loading with validation.

- :func:`load` reads ``data/<name>/`` (written by ``python -m roundlab.data <name>``, the DVC
  ``generate`` stage) and validates it.
- :func:`materialize` is what training calls with ``cfg.dataset``: the stored data when it was
  made from the same config, else the same data generated in memory; either way the resample
  ``cfg.dataset.resample`` picks, for a dataset with several (:mod:`roundlab.data.resamples`).
- :func:`resample_count` says how many resamples a dataset config has, without TensorFlow
  (what the sweep planner expands).
- :func:`register_configs` stores the config schemas in Hydra's ConfigStore.

Generators (``names()``): affine, count, digit_sum, poisson, diabetes, randhie, anes96, csv.

May import the leaves only (paths, metrics): the engine and everything above read data
through :class:`Dataset`.
"""

from roundlab.data.build import (
    compose_config,
    generate,
    generate_all,
    materialize,
    read_config,
    resample_count,
    stored_meta,
    to_config,
)
from roundlab.data.dataset import Dataset, Split, warn_if_constant
from roundlab.data.registry import names, register_configs
from roundlab.data.store import load, save

__all__ = [
    "Dataset",
    "Split",
    "compose_config",
    "generate",
    "generate_all",
    "load",
    "materialize",
    "names",
    "read_config",
    "register_configs",
    "resample_count",
    "save",
    "stored_meta",
    "to_config",
    "warn_if_constant",
]
