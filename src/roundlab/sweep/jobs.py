"""A multirun's jobs as configs (:func:`job_configs`), for the launcher, the dry run and the
sweep's own reuse decision (:mod:`roundlab.sweep.decide`); what becomes of each is
:mod:`roundlab.sweep.schedule`. Composing a job's config is most of a stacked sweep's own time,
so the first job of every set whose overrides differ only in a member's own values (seed,
learning rate, the activation's parameter) is composed and the others are derived from it, as
composing them would give. Imports no TensorFlow.
"""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import Callable, Sequence
from typing import Any

# Hydra's own naming of a job's override_dirname (a private helper of the pinned hydra-core).
from hydra._internal.config_loader_impl import get_overrides_dirname
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.override_parser.types import Override, OverrideType
from hydra.core.utils import filter_overrides
from omegaconf import DictConfig, OmegaConf, open_dict

from roundlab.runs import activation_parameters

log = logging.getLogger(__name__)

Compose = Callable[[list[str]], DictConfig]  # a job's overrides -> its composed sweep config
_ABSENT = object()


def job_configs(
    compose: Compose,
    job_overrides: Sequence[Sequence[str]],
    initial_job_idx: int = 0,
    composed: dict[tuple[str, ...], DictConfig] | None = None,
) -> list[DictConfig]:
    """Each job's sweep config (with its ``hydra`` node), composed or derived. ``composed``:
    the configs composed so far by their jobs' signature, kept by the caller across batches of
    one multirun (a queue worker's tasks: a family's later rounds differ only in their rates,
    and compose nothing again)."""
    composed = {} if composed is None else composed
    out = []
    for idx, overrides in enumerate(job_overrides, start=initial_job_idx):
        log.info(f"\t#{idx} : {' '.join(filter_overrides(overrides))}")
        parsed = [_parsed(o) for o in overrides]
        signature, values = member_values(parsed)
        cfg = None if signature not in composed else derive(composed[signature], parsed, values)
        if cfg is None:
            cfg = compose(list(overrides))
            composed.setdefault(signature, copy.deepcopy(cfg))
        with open_dict(cfg):
            cfg.hydra.job.id = idx
            cfg.hydra.job.num = idx
        out.append(cfg)
    return out


_PARSER = OverridesParser.create()


@functools.lru_cache(maxsize=4096)
def _parsed(override: str) -> Override:
    """One override parsed by Hydra's grammar (about half a millisecond each), once per
    process: a worker's jobs repeat the same few hundred. Nothing here changes the parsed
    object (:func:`derive` reads it)."""
    return _PARSER.parse_overrides([override])[0]


def member_values(parsed: list[Override]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """``(signature, values)``: the overrides other than a member's own (``seed``,
    ``trainer.learning_rate`` and ``activation.<parameter>`` set to a plain value), and those
    values by key."""
    params = {found[0] for found in activation_parameters().values() if found is not None}
    own = {"seed", "trainer.learning_rate", *(f"activation.{p}" for p in params)}
    values, rest = {}, []
    for o in parsed:
        plain = o.type == OverrideType.CHANGE and o.package is None
        if plain and o.key_or_group in own and not o.is_sweep_override():
            values[o.key_or_group] = o.value()
        else:
            rest.append(o.input_line)
    return (*sorted(rest), "|", *sorted(values)), values


def derive(base: DictConfig, parsed: list[Override], values: dict[str, Any]) -> DictConfig | None:
    """``base`` (a composed sweep config) with ``values`` set and ``parsed`` as its task
    overrides; None when a key is not in ``base``, so the job is composed instead."""
    if any(OmegaConf.select(base, key, default=_ABSENT) is _ABSENT for key in values):
        return None
    cfg = copy.deepcopy(base)
    for key, value in values.items():
        OmegaConf.update(cfg, key, value, merge=False)
    names = cfg.hydra.job.config.override_dirname
    cfg.hydra.overrides.task = [o.input_line for o in parsed]
    cfg.hydra.job.override_dirname = get_overrides_dirname(
        overrides=parsed,
        exclude_keys=list(names.exclude_keys),
        item_sep=names.item_sep,
        kv_sep=names.kv_sep,
    )
    return cfg
