"""What a sweep worker keeps from one stacked group to the next: each seed's initial weights per
network (:func:`initial_weights`), and once it says so (:func:`keep_between_groups`) each group
key's approach with the ordinary network its members are scored and saved in
(:func:`scoring_network`), with the graphs traced for it, and its traced epoch program
(:func:`program_key`).

A worker trains a family's rounds one after another (its rates beyond the grid's edges, the
same seeds) and the rounding activations on networks that differ only in a layer without
weights; building and tracing those again for every group was most of a small group's set-up.
"""

from __future__ import annotations

import json
from collections import OrderedDict

import keras
import numpy as np
from omegaconf import DictConfig

from roundlab import activations, approaches
from roundlab.approaches.head import Approach
from roundlab.data import Dataset
from roundlab.engine import models
from roundlab.engine.models import Network
from roundlab.run.config import to_yaml


def initial_weights(cfg: DictConfig, dataset: Dataset, approach: Approach) -> list[np.ndarray]:
    """The weights ``build_mlp`` gives under the seed of ``cfg``, built once per process and
    network.

    Members of a group differ only in seed, rate and the activation's parameter, the rounding
    activations' networks only in a layer without weights that draws nothing, and a family's
    rounds of rate extensions repeat its seeds: a worker built the same few networks again for
    every group (about 40 ms each). The network is named by what its weights are drawn from:
    the features, the model config, the output units and their initial biases, and the head's
    layers that have weights, by their configs (``approach`` gives those). It is built with an
    approach of its own: the head layers of ``approach`` may hold a scored member's trained
    weights (a worker's kept network), and a built layer keeps its weights when it joins
    another network (tests/engine/test_vectorized.py checks every approach and activation
    against ``build_mlp``, also after a kept network was scored)."""
    seed = int(cfg.seed)
    heads = tuple(
        (type(layer).__name__, json.dumps(layer.get_config(), sort_keys=True, default=str))
        for layer in approach.head
        if getattr(layer, "weight_shapes", ())
    )
    bias = tuple(np.ravel(approach.bias).tolist())
    key = (seed, dataset.n_features, to_yaml(cfg.model), approach.units, bias, heads)
    if key not in _INITIAL:
        own = approaches.build(cfg, dataset.train.y)
        keras.utils.set_random_seed(seed)
        _INITIAL[key] = models.build_mlp(dataset.n_features, cfg.model, own).model.get_weights()
    _INITIAL.move_to_end(key)
    while len(_INITIAL) > KEPT_INITIAL:
        _INITIAL.popitem(last=False)
    return _INITIAL[key]


# This process's initial weights by network and seed, the most recently used last.
_INITIAL: OrderedDict[tuple, list[np.ndarray]] = OrderedDict()
KEPT_INITIAL = 256


def scoring_network(
    key: tuple[str, str], cfg: DictConfig, dataset: Dataset
) -> tuple[Approach, Network]:
    """The approach of the group ``key`` names (its config but the members' own values, with
    its data's hash) and the ordinary network its members are scored and saved in, made once
    per process and key (when it keeps them), with the output activation of ``cfg``: a family's
    later rounds are scored through the graphs its first round traced (a network's graphs stay
    with it), not built and traced again."""
    if not _KEEPING or key not in _NETWORKS:
        approach = approaches.build(cfg, dataset.train.y)
        made = (approach, models.build_mlp(dataset.n_features, cfg.model, approach))
        if not _KEEPING:
            set_activation(approach, cfg)
            return made
        _NETWORKS[key] = made
    _NETWORKS.move_to_end(key)
    while len(_NETWORKS) > KEPT_NETWORKS:
        _NETWORKS.popitem(last=False)
    approach, network = _NETWORKS[key]
    set_activation(approach, cfg)
    return approach, network


def keep_between_groups() -> None:
    """From now on this process keeps its groups' approaches, networks and traced programs for
    the next group of the same key (:func:`program_key`): a sweep's worker, which runs nothing
    else. Off by default, so that a process that changes what a trace captured between two
    groups (a test patching a loss) gets a new trace."""
    global _KEEPING
    _KEEPING = True


def program_key(key: tuple[str, str]) -> tuple[str, str] | None:
    """The key under which the group ``key`` names shares its traced epoch program with the
    later groups of that key (``train_members(program_key=...)``), None when this process does
    not keep them."""
    return key if _KEEPING else None


_KEEPING = False


# This process's approaches and networks by group key, the most recently used last.
_NETWORKS: OrderedDict[tuple[str, str], tuple[Approach, Network]] = OrderedDict()
KEPT_NETWORKS = 16


def set_activation(approach: Approach, cfg: DictConfig) -> None:
    """Give ``approach``'s output activation (and the head layers holding it) the parameter
    ``cfg`` sets."""
    if approach.activation is not None:
        found = activations.get(
            cfg.activation.name, **activations.activation_params(cfg.activation)
        )
        approach.activation = found
        for layer in approach.head:
            layer.activation = found
