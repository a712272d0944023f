"""Small integer-labelled data, approaches composed from the real config, and build_mlp's initial
weights: what the group engine is compared against."""

from __future__ import annotations

import numpy as np

N_FEATURES = 4
HIDDEN = [8, 8]

# approach/activation overrides of the configurations the engine is tested on
APPROACHES = {
    "soft_round": ["approach=rounding", "activation=soft_round"],
    "ste_round": ["approach=rounding", "activation=ste_round"],
    "identity": ["approach=rounding", "activation=identity"],
    "regression": ["approach=regression"],
    "classification": ["approach=classification"],
    "ordinal_corn": ["approach=ordinal", "approach.method=corn"],
    "ordinal_coral": ["approach=ordinal", "approach.method=coral"],
    "poisson": ["approach=poisson"],
}


def labelled(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Features and integer labels 0..8 that depend on them (a learnable count)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
    y = np.clip(np.round(4 + 1.5 * x[:, 0] - x[:, 1]), 0, 8).astype(np.float32)
    return x, y


def setup(name: str, y_train: np.ndarray, *overrides: str):
    """(cfg, approach) of a configuration in APPROACHES, with HIDDEN as the MLP."""
    from roundlab import approaches
    from roundlab.run import config

    hidden = ",".join(map(str, HIDDEN))
    cfg = config.compose([*APPROACHES[name], f"model.hidden_sizes=[{hidden}]", *overrides])
    return cfg, approaches.build(cfg, y_train)


def network(cfg, approach, seed: int):
    """build_mlp's network with the initial weights of ``seed``, as the single-run path."""
    import keras

    from roundlab.engine import models

    keras.utils.set_random_seed(seed)
    return models.build_mlp(N_FEATURES, cfg.model, approach)


def initial_weights(cfg, approach, seed: int) -> list[np.ndarray]:
    return network(cfg, approach, seed).model.get_weights()
