"""Which sweep jobs can train together as one stacked program.

Jobs share a group when their resolved configs agree on everything but the seed, the learning
rate and the value of the output activation's parameter: same dataset and its config,
approach, activation, architecture and other trainer settings. Each member keeps its own seed
(initial weights and shuffling), learning rate and parameter value. Jobs that cannot be
stacked (numpy-backed activations anywhere, dropout, mixed precision, an optimizer other than
adam, sgd or rmsprop at Keras's defaults) train one at a time
through the ordinary path, and so are the references (statsmodels and LightGBM fits, no
network).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from omegaconf import DictConfig, OmegaConf

from roundlab import activations, approaches
from roundlab.engine.stacked_optimizers import stacked_optimizer
from roundlab.run.validate import output_activation
from roundlab.runs import RUN_INDEPENDENT_KEYS
from roundlab.sweep.profile import check_max_members

# What never splits a group: the member's own seed, and what does not change a run.
_MEMBER_KEYS = ("seed", *RUN_INDEPENDENT_KEYS)


def group_key(cfg: DictConfig) -> str:
    """The part of a resolved config the members of a group share, as canonical JSON."""
    tree = OmegaConf.to_container(cfg, resolve=True)
    for key in _MEMBER_KEYS:
        tree.pop(key, None)
    tree["trainer"].pop("learning_rate", None)
    spec = activations.spec(cfg.activation.name)
    if spec.param is not None:
        tree["activation"].pop(spec.param, None)
    if not approaches.get(cfg.approach.name).uses_activation:
        tree.pop("activation")
    return json.dumps(tree, sort_keys=True, default=str)


def why_not_stackable(cfg: DictConfig | None) -> str | None:
    """Why the job must train alone, or None when it can join a group. ``None`` stands for a
    job whose config failed validation (the ordinary path reports why)."""
    if cfg is None:
        return "its config does not validate"
    if approaches.get(cfg.approach.name).is_reference:
        name = cfg.approach.name
        return f"approach={name} is a reference (a statsmodels or LightGBM fit), not a network"
    numpy_backed = activations.numpy_backed(cfg.model.hidden_activation, output_activation(cfg))
    if numpy_backed:
        return f"numpy-backed activations {numpy_backed} run on the host, one job at a time"
    if cfg.model.dropout > 0:
        return f"model.dropout={cfg.model.dropout} (dropout is trained one job at a time)"
    if cfg.trainer.mixed_precision:
        return "trainer.mixed_precision=true (the stacked program is float32)"
    try:
        stacked_optimizer(cfg.trainer.optimizer)
    except ValueError:
        return f"trainer.optimizer={cfg.trainer.optimizer} has no stacked step (adam, sgd, rmsprop)"
    return None


def plan(
    cfgs: Sequence[DictConfig | None], max_members: int, skip: Collection[int] = ()
) -> tuple[list[list[int]], list[int]]:
    """``(groups, alone)``: job indices that train together, in chunks of at most
    ``max_members``, and those that train alone; every index but those in ``skip`` (jobs that
    do not train, e.g. reused) appears once, in job order."""
    check_max_members(max_members)
    by_key: dict[str, list[int]] = {}
    alone = []
    for i, cfg in enumerate(cfgs):
        if i in skip:
            continue
        if why_not_stackable(cfg) is not None:
            alone.append(i)
        else:
            by_key.setdefault(group_key(cfg), []).append(i)
    groups = [
        members[start : start + max_members]
        for members in by_key.values()
        for start in range(0, len(members), max_members)
    ]
    return groups, alone


def knob(cfg: DictConfig) -> tuple[str | None, float | None]:
    """The output activation's parameter name and this job's value (None, None without one)."""
    if not approaches.get(cfg.approach.name).uses_activation:
        return None, None
    param = activations.spec(cfg.activation.name).param
    return (param, float(cfg.activation[param])) if param else (None, None)


def describe(
    cfgs: Sequence[DictConfig | None], groups: list[list[int]], alone: list[int]
) -> list[str]:
    """One line per group and per lone job, for logs and ``--dry-run``."""
    lines = []
    for members in groups:
        first: Any = cfgs[members[0]]
        name, _ = knob(first)
        values = sorted({knob(cfgs[i])[1] for i in members} - {None})
        seeds = sorted({int(cfgs[i].seed) for i in members})
        rates = sorted({float(cfgs[i].trainer.learning_rate) for i in members})
        what = f"{first.dataset.name}/{first.approach.name}"
        if approaches.get(first.approach.name).uses_activation:
            what += f"/{first.activation.name}" + (f" {name}={values}" if name else "")
        lines.append(f"group of {len(members)}: {what} learning_rate={rates} seeds={seeds}")
    for i in alone:
        lines.append(f"alone: job {i} ({why_not_stackable(cfgs[i])})")
    return lines
