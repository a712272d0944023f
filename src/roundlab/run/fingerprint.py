"""A run's fingerprint: a hash of everything its result depends on, recorded in its result file
so that a resumed sweep can tell which result files it may keep.

    fingerprint = SHA-256 of canonical JSON {"config": C, "code": K, "data": D}

- C: the resolved config without :data:`roundlab.runs.RUN_INDEPENDENT_KEYS` (where the run
  writes, how a sweep schedules, exits and scores it); the seed, learning rate and every other
  value stay.
- K: :func:`code_hash` of the files the run's result depends on
  (:func:`roundlab.run.code_scope.code_files`): the training side (data, engine, approaches,
  activations, the job's steps) reached through the import graph from the job and the stacked
  group, without tracking, serving, the sweep's scheduling, the report and the study, and of the
  activation modules only those defining the activations the run's network uses (of the
  approach modules, its own). Editing a tracking module retrains nothing; editing
  ``activations/sigmoid.py`` retrains the ``sigmoid_round`` runs.
- D: :func:`data_hash`, the recorded SHA-256 of each array file of ``data/<name>/`` (of the
  run's resample, ``data/<name>/resample=<r>/``, for a dataset with several) when training
  reads that directory (its meta.json was made from this dataset config), else the dataset config
  and the hashes of its input files (a CSV), from which the job generates the same arrays.

Two runs with one fingerprint train the same network on the same data with the same code; with
``trainer.deterministic=true`` they give the same metrics. :func:`stamp` records it in the
result, with whether the run's failure (if any) would happen again for the same fingerprint:
``no gradient`` (the model has no gradient path, for any seed) always, a loss that became
NaN/inf under op determinism too.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf

from roundlab import approaches, paths
from roundlab.data import registry, store, stored_meta, to_config
from roundlab.data.csv_table import resolve
from roundlab.results import FAILED, RunResult
from roundlab.run.code_scope import activation_modules, code_files
from roundlab.runs import RUN_INDEPENDENT_KEYS

PACKAGE_DIR = Path(__file__).resolve().parents[1]


# Reasons (prefixes of RunResult.error) that the same config, code and data fail with again.
ALWAYS_DETERMINISTIC = ("no gradient",)
DETERMINISTIC_UNDER_OP_DETERMINISM = ("loss became",)


def stamp(result: RunResult, cfg: DictConfig, data: str | None = None) -> None:
    """Record the run's fingerprint and whether its failure (if any) is deterministic; ``data``:
    its :func:`data_hash`, when the caller has it (a stacked group's members share one)."""
    result.fingerprint = fingerprint(cfg, data)
    result.deterministic_failure = result.status == FAILED and is_deterministic(
        result.error or "", bool(cfg.trainer.deterministic)
    )


def is_deterministic(error: str, op_determinism: bool) -> bool:
    """Whether a failure with reason ``error`` happens again for the same fingerprint."""
    if error.startswith(ALWAYS_DETERMINISTIC):
        return True
    return op_determinism and error.startswith(DETERMINISTIC_UNDER_OP_DETERMINISM)


def fingerprint(cfg: DictConfig, data: str | None = None) -> str:
    """The fingerprint of the run a resolved training config describes (``data``: its
    :func:`data_hash`, computed when not given)."""
    tree = OmegaConf.to_container(cfg, resolve=True)
    return of_tree(tree, run_code_hash(cfg), data or data_hash(cfg.dataset))


def of_tree(tree: dict[str, Any], code: str, data: str) -> str:
    """The fingerprint of a resolved config as a plain ``tree`` (``OmegaConf.to_container``),
    given its run's code and data hashes: the sweep computes those once for the jobs that
    differ only in a member's own values (:mod:`roundlab.sweep.decide`)."""
    config = {k: v for k, v in tree.items() if k not in RUN_INDEPENDENT_KEYS}
    return _sha256({"config": config, "code": code, "data": data})


def run_code_hash(cfg: DictConfig) -> str:
    """:func:`code_hash` of the files the run ``cfg`` describes depends on."""
    return code_hash(cfg.approach.name, used_activations(cfg))


def used_activations(cfg: DictConfig) -> tuple[str, ...]:
    """The catalogued activations the run's network uses: its output activation (approaches
    that use one) and its hidden activation when the catalogue has it (else a Keras one). A
    reference has no network. Raises ValueError for an unknown approach."""
    spec = approaches.get(cfg.approach.name)
    if spec.is_reference:
        return ()
    used = {cfg.model.hidden_activation} & activation_modules(PACKAGE_DIR).keys()
    if spec.uses_activation:
        used.add(cfg.activation.name)
    return tuple(sorted(used))


@functools.cache
def code_hash(approach: str | None = None, activations: tuple[str, ...] = ()) -> str:
    """SHA-256 over the path and bytes of the files a run of ``approach`` using the catalogued
    ``activations`` depends on (:func:`~roundlab.run.code_scope.code_files`; no arguments:
    the files every run depends on). Computed once per process and key (the code a process runs
    is the code it loaded): a sweep's fingerprints cost a dictionary look-up for the code."""
    digest = hashlib.sha256()
    for relative in code_files(PACKAGE_DIR, approach, activations):
        file = PACKAGE_DIR / relative
        digest.update(relative.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def data_hash(dataset_cfg: Any) -> str:
    """What the run's data is made of: the stored files' recorded hashes when training reads
    ``data/<name>/`` (as :func:`roundlab.data.materialize` decides), else the dataset config and
    its input files' hashes. Raises ValueError for a dataset config that cannot be generated.

    Computed once per process and dataset config while the files it was computed from (the
    directory's meta.json, each resample's, the input files) keep their ``stat``
    (modification time, size, inode): a sweep's bases share a handful of dataset configs, and
    data written during the sweep (a worker materialising ``data/<name>/``) or an input edited
    is hashed again."""
    tree = dataset_cfg if not isinstance(dataset_cfg, DictConfig) else _plain(dataset_cfg)
    key = json.dumps(
        [tree, str(paths.data_dir()), str(paths.project_root())], sort_keys=True, default=str
    )
    found = _DATA_HASHES.get(key)
    if found is not None and found[1] == _stats(found[0]):
        return found[2]
    cfg = to_config(dataset_cfg)
    directory = paths.data_dir() / cfg.name
    resamples = sorted(directory.glob(f"{store.resample_dir('*')}/{store.META}"))
    watched = (directory / store.META, *resamples) + tuple(
        resolve(p) for p in registry.get(cfg.generator).sources(cfg)
    )
    before = _stats(watched)
    digest = _data_hash(cfg)
    _DATA_HASHES[key] = (watched, before, digest)
    return digest


_DATA_HASHES: dict[str, tuple[tuple[Path, ...], tuple[Any, ...], str]] = {}


def _plain(cfg: DictConfig) -> Any:
    return OmegaConf.to_container(cfg, resolve=True)


def _stats(files: tuple[Path, ...]) -> tuple[Any, ...]:
    """Each file's (mtime_ns, size, inode), None for one that is not there."""
    out = []
    for file in files:
        try:
            info = file.stat()
            out.append((info.st_mtime_ns, info.st_size, info.st_ino))
        except OSError:
            out.append(None)
    return tuple(out)


def _data_hash(cfg: Any) -> str:
    meta = stored_meta(cfg)
    if meta is not None:  # the run's own resample, for a dataset with several
        files = {
            split: [entry["x"]["sha256"], entry["y"]["sha256"]]
            for split, entry in meta.get("splits", {}).items()
        }
        return _sha256({"stored": files})
    sources = registry.get(cfg.generator).sources(cfg)
    return _sha256({"generated": dataclasses.asdict(cfg), "sources": sources})


def _sha256(tree: Any) -> str:
    text = json.dumps(tree, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()
