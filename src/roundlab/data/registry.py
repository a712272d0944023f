"""The one registry of dataset generators: name -> schema, generator function, data sources,
oracle."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hydra.core.config_store import ConfigStore

from roundlab.data import resamples
from roundlab.data.csv_source import csv_dataset, csv_sources
from roundlab.data.oracle import (
    Oracle,
    affine_oracle,
    count_oracle,
    digit_sum_oracle,
    no_oracle,
    poisson_oracle,
)
from roundlab.data.sampling import Arrays
from roundlab.data.schemas import (
    AffineConfig,
    CountConfig,
    DatasetConfig,
    DigitSumConfig,
    PoissonConfig,
)
from roundlab.data.sklearn_sets import diabetes_dataset, digit_sum_dataset
from roundlab.data.statsmodels_sets import bundled_dataset, bundled_sources
from roundlab.data.synthetic import Generated, affine_dataset, count_dataset, poisson_dataset
from roundlab.data.table_schemas import Anes96Config, CsvConfig, DiabetesConfig, RandhieConfig


def _no_sources(cfg: Any) -> dict[str, str]:
    return {}


def _one(cfg: Any) -> int:
    return 1


@dataclass(frozen=True)
class Generator:
    """``make(cfg)`` returns the splits, feature names and provenance (:class:`Generated`);
    ``sources(cfg)`` the content hashes of the input files it reads (a changed input means the
    stored data is stale);
    ``oracle(cfg, splits)`` the best exact match and MAE per split (see
    :mod:`roundlab.data.oracle`), from the splits as made, before any standardisation;
    ``resamples(cfg)`` how many split sets the config describes (``make`` makes the one
    ``cfg.resample`` picks; :mod:`roundlab.data.resamples`)."""

    schema: type[DatasetConfig]
    make: Callable[[Any], Generated]
    sources: Callable[[Any], dict[str, str]] = _no_sources
    oracle: Callable[[Any, dict[str, Arrays]], Oracle | None] = no_oracle
    resamples: Callable[[Any], int] = _one


GENERATORS: dict[str, Generator] = {
    "affine": Generator(AffineConfig, affine_dataset, oracle=affine_oracle),
    "count": Generator(CountConfig, count_dataset, oracle=count_oracle),
    "digit_sum": Generator(DigitSumConfig, digit_sum_dataset, oracle=digit_sum_oracle),
    "poisson": Generator(PoissonConfig, poisson_dataset, oracle=poisson_oracle),
    "diabetes": Generator(DiabetesConfig, diabetes_dataset),
    "randhie": Generator(RandhieConfig, bundled_dataset, bundled_sources),
    "anes96": Generator(Anes96Config, bundled_dataset, bundled_sources),
    "csv": Generator(CsvConfig, csv_dataset, csv_sources, resamples=resamples.count),
}


def names() -> list[str]:
    return list(GENERATORS)


def get(name: str) -> Generator:
    if name not in GENERATORS:
        raise ValueError(f"generator must be one of {names()}. Received: generator={name!r}")
    return GENERATORS[name]


def register_configs() -> None:
    """Store each schema in Hydra's ConfigStore as ``dataset/base_<generator>``.

    ``conf/dataset/<name>.yaml`` lists ``base_<generator>`` first in its defaults, so Hydra
    checks it against the schema. Call this before composing; calling it again is harmless.
    """
    store = ConfigStore.instance()
    for name, generator in GENERATORS.items():
        store.store(group="dataset", name=f"base_{name}", node=generator.schema)
