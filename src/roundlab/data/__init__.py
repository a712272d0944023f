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

- :mod:`roundlab.data.entries` reads params.yaml's dataset entries.

May import the leaves only (paths, metrics): the engine and everything above read data
through :class:`Dataset`. The names below are imported when first used (PEP 562), so that
reading params.yaml's entries (the sweep's planner, the report) does not import the generators
and their libraries.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Dataset": "dataset",
    "Split": "dataset",
    "warn_if_constant": "dataset",
    "compose_config": "build",
    "generate": "build",
    "generate_all": "build",
    "materialize": "build",
    "read_config": "build",
    "resample_count": "build",
    "stored_meta": "build",
    "to_config": "build",
    "names": "registry",
    "register_configs": "registry",
    "load": "store",
    "save": "store",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value
