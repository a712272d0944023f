"""Integer-labelled datasets: generators, the on-disk format, loading with validation.

- :func:`load` reads ``data/<name>/`` (written by ``python -m roundlab.data <name>``, the DVC
  ``generate`` stage) and validates it.
- :func:`materialize` is what training calls with ``cfg.dataset``: the stored data when it was
  made from the same config, else the same data generated in memory.
- :func:`register_configs` stores the config schemas in Hydra's ConfigStore.

Generators (``names()``): affine, count, digit_sum, poisson, diabetes, randhie, anes96, csv.

May import the leaves only (paths, metrics): the engine and everything above read data
through :class:`Dataset`.
"""

from roundlab.data.build import compose_config, generate, materialize, to_config
from roundlab.data.dataset import Dataset, Split, warn_if_constant
from roundlab.data.registry import names, register_configs
from roundlab.data.store import load, save

__all__ = [
    "Dataset",
    "Split",
    "compose_config",
    "generate",
    "load",
    "materialize",
    "names",
    "register_configs",
    "save",
    "to_config",
    "warn_if_constant",
]
