"""From a dataset config to a :class:`Dataset`: compose, check, generate, or reuse data/<name>/."""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hydra import compose, initialize_config_dir
from omegaconf import DictConfig, OmegaConf

from roundlab import paths
from roundlab.data import registry, store
from roundlab.data.dataset import Dataset
from roundlab.data.sampling import standardize
from roundlab.data.schemas import DatasetConfig, require

log = logging.getLogger(__name__)

DatasetCfg = DictConfig | Mapping[str, Any] | DatasetConfig


def compose_config(
    name: str, overrides: Sequence[str] = (), conf_dir: str | os.PathLike[str] | None = None
) -> DictConfig:
    """``conf/dataset/<name>.yaml`` composed by Hydra against its schema.

    ``overrides`` are ``key=value`` strings for the dataset's own keys (``n_train=100``).
    It initialises Hydra for the call, so it is for scripts and tests: inside a running
    ``@hydra.main`` app (one Hydra at a time) use the app's composed ``cfg.dataset``.
    """
    conf = Path(conf_dir) if conf_dir else paths.CONF_DIR
    file = conf / "dataset" / f"{name}.yaml"
    if not file.is_file():
        known = sorted(p.stem for p in (conf / "dataset").glob("*.yaml"))
        raise FileNotFoundError(f"no dataset config {file}. Known: {known}")
    registry.register_configs()
    with initialize_config_dir(config_dir=str(conf.resolve()), version_base="1.3"):
        cfg = compose(overrides=[f"+dataset={name}", *(f"dataset.{o}" for o in overrides)])
    return cfg.dataset


def to_config(dataset_cfg: DatasetCfg) -> DatasetConfig:
    """The typed, checked config: merged onto its generator's schema, then ``check()``-ed.

    The generator is ``dataset_cfg.generator``, or its ``name`` when that is absent.
    """
    if isinstance(dataset_cfg, DatasetConfig):
        node = OmegaConf.structured(dataset_cfg)
    else:
        node = OmegaConf.create(
            dataset_cfg if isinstance(dataset_cfg, DictConfig) else dict(dataset_cfg)
        )
    # Plain values; a mandatory value left unset stays "???" and is reported below.
    body = OmegaConf.to_container(node, resolve=True)
    # A YAML file loaded without Hydra still holds its defaults list (the schema link).
    body.pop("defaults", None)
    generator = registry.get(str(body.get("generator") or body.get("name")))
    merged = OmegaConf.merge(OmegaConf.structured(generator.schema), body)
    missing = sorted(OmegaConf.missing_keys(merged))
    require(
        not missing,
        "the dataset config must set every parameter of its schema (to start from a "
        "config's values and state only what differs, list that config, e.g. `csv`, first "
        "in its defaults instead of base_<generator>)",
        missing=missing,
    )
    cfg = OmegaConf.to_object(merged)
    cfg.check()
    return cfg


def stored_params(cfg: DatasetConfig) -> dict[str, Any]:
    """The config as meta.json records it: every parameter but ``resample``, which picks one
    of the split sets data/<name>/ holds rather than making other data."""
    params = dataclasses.asdict(cfg)
    params.pop("resample", None)
    return params


def resample_count(dataset_cfg: DatasetCfg) -> int:
    """How many resamples (split sets) the dataset config describes: 1 but for a CSV dataset
    with ``resamples`` or partition files (:mod:`roundlab.data.resamples`)."""
    cfg = to_config(dataset_cfg)
    return registry.get(cfg.generator).resamples(cfg)


def read_config(
    name: str, overrides: Sequence[str] = (), conf_dir: str | os.PathLike[str] | None = None
) -> DatasetConfig:
    """``conf/dataset/<name>.yaml`` with ``key=value`` overrides, typed and checked, read
    without Hydra (which allows one initialisation per process, and a sweep's planner may run
    inside one), composed as Hydra would: the file's defaults first (``base_<generator>``
    picks the generator, another name is a dataset config whose keys it starts from, e.g.
    ``csv``), then its own keys, then the overrides."""
    body = _read_chain(Path(conf_dir or paths.CONF_DIR) / "dataset", name, ())
    merged = OmegaConf.merge(body, OmegaConf.from_dotlist(list(overrides)))
    return to_config(OmegaConf.to_container(merged, resolve=True))


def _read_chain(directory: Path, name: str, seen: tuple[str, ...]) -> DictConfig:
    file = directory / f"{name}.yaml"
    if not file.is_file():
        known = sorted(p.stem for p in directory.glob("*.yaml"))
        raise FileNotFoundError(f"no dataset config {file}. Known: {known}")
    if name in seen:
        raise ValueError(f"dataset configs must not extend each other in a circle: {seen}")
    body = OmegaConf.to_container(OmegaConf.load(file), resolve=False)
    merged = OmegaConf.create()
    for default in body.pop("defaults", []):
        if not isinstance(default, str) or default == "_self_":
            continue
        if default.startswith("base_"):
            merged = OmegaConf.merge(merged, {"generator": default.removeprefix("base_")})
        else:
            merged = OmegaConf.merge(merged, _read_chain(directory, default, (*seen, name)))
    return OmegaConf.merge(merged, body)


def generate(dataset_cfg: DatasetCfg) -> Dataset:
    """Generate the dataset in memory, the resample its config picks (deterministic: the same
    config gives the same arrays)."""
    cfg = to_config(dataset_cfg)
    return _generate(cfg, registry.get(cfg.generator).resamples(cfg))


def generate_all(dataset_cfg: DatasetCfg) -> list[Dataset]:
    """Every resample of the dataset, 0..R-1 (one Dataset when it has none), as
    ``python -m roundlab.data`` writes them."""
    cfg = to_config(dataset_cfg)
    total = registry.get(cfg.generator).resamples(cfg)
    if total == 1:
        return [_generate(cfg, 1)]
    return [_generate(dataclasses.replace(cfg, resample=r), total) for r in range(total)]


def _generate(cfg: DatasetConfig, total: int) -> Dataset:
    generator = registry.get(cfg.generator)
    splits, feature_names, provenance = generator.make(cfg)
    oracle = generator.oracle(cfg, splits)
    stats = None
    if cfg.standardize:
        splits, stats = standardize(splits)
    return store.assemble(
        name=cfg.name,
        generator=cfg.generator,
        params=stored_params(cfg),
        splits=splits,
        feature_names=feature_names,
        standardization=stats,
        sources=generator.sources(cfg),
        oracle=oracle,
        provenance=provenance,
        resample=getattr(cfg, "resample", None) or 0,
        resamples=total,
    )


def materialize(dataset_cfg: DatasetCfg, data_dir: str | os.PathLike[str] | None = None) -> Dataset:
    """The dataset a config describes, the resample it picks: from ``<data_dir>/<name>/`` when
    that was generated from exactly this config (:func:`stored_meta`), validated by
    :func:`roundlab.data.load`; otherwise generated in memory and not written, so the files
    under DVC's control only ever change through ``dvc repro``. A directory that holds files
    but no meta.json is broken, not another config: FileNotFoundError naming it and how to
    regenerate it, rather than training on data nobody asked for.
    """
    cfg = to_config(dataset_cfg)
    directory = Path(data_dir or paths.data_dir()) / cfg.name
    if _is_stored(cfg, directory):
        log.info("dataset %s: loading %s", cfg.name, directory)
        return store.load(directory, resample=getattr(cfg, "resample", None))
    log.info(
        "dataset %s: config or format differs from %s, generating in memory", cfg.name, directory
    )
    return generate(cfg)


def stored_meta(
    dataset_cfg: DatasetCfg, data_dir: str | os.PathLike[str] | None = None
) -> dict[str, Any] | None:
    """The meta.json of the split set a run of this config reads from ``<data_dir>/<name>/``
    (its resample's, for a dataset with resamples), or None when :func:`materialize` would
    generate the data in memory instead."""
    cfg = to_config(dataset_cfg)
    directory = Path(data_dir or paths.data_dir()) / cfg.name
    if not _is_stored(cfg, directory):
        return None
    meta = store.read_meta(directory)
    hint = store.regenerate_hint(cfg.name)
    return store.set_meta(directory, meta, getattr(cfg, "resample", None) or 0, hint)[1]


def _is_stored(cfg: DatasetConfig, directory: Path) -> bool:
    """Whether ``directory`` was generated from exactly this config (same ``params`` in
    meta.json but ``resample``, same input-file hashes) by code writing the current format (an
    older one lacks fields, e.g. the oracle)."""
    meta = store.read_meta(directory)
    if meta is None and directory.is_dir() and any(directory.iterdir()):
        raise FileNotFoundError(
            f"{directory} is broken: it holds files but no {store.META}. "
            f"{store.regenerate_hint(cfg.name)}"
        )
    sources = registry.get(cfg.generator).sources(cfg)
    return (
        meta is not None
        and meta.get("format_version") == store.FORMAT_VERSION
        and meta.get("params") == stored_params(cfg)
        and meta.get("sources") == sources
    )
