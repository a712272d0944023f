"""Cost of training a group of MLPs stacked as one program against one Keras ``fit`` at a time.

20 members of a 64-64 MLP with a soft_round head (alpha from 1 to 20, one per member) on 1500
training and 300 validation examples of 10 features, batch 64, 20 epochs, trained by
``roundlab.engine.train_members`` without and with XLA. A run of 1 epoch and a run of
1 + epochs separate the one-off cost (tracing or XLA compilation, first epoch) from the cost
per member-epoch: (t(1 + epochs) - t(1)) / (epochs x members). The comparison is one epoch of
Keras ``fit`` of the same network (without and with XLA; the single-run path compiles without it
under op determinism), after a warm-up epoch. Prints a markdown table.

    python bench/stacked_engine.py [--members 20] [--epochs 20]
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from roundlab import approaches  # noqa: E402
from roundlab.engine import (  # noqa: E402
    Member,
    models,  # noqa: E402
    train_members,
)
from roundlab.run import (
    config,  # noqa: E402
)

N_TRAIN, N_VAL, N_FEATURES, BATCH, HIDDEN = 1500, 300, 10, 64, [64, 64]


def labelled(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
    y = np.clip(np.round(5 + 2 * x[:, 0] - x[:, 1] + x[:, 2] * x[:, 3]), 0, 12)
    return x, y.astype(np.float32)


def engine_seconds(approach, members, data, epochs: int, jit: bool) -> float:
    start = time.perf_counter()
    train_members(
        approach,
        members,
        *data,
        hidden_sizes=HIDDEN,
        batch_size=BATCH,
        epochs=epochs,
        jit_compile=jit,
    )
    return time.perf_counter() - start


def keras_epoch_seconds(cfg, approach, weights, data, epochs: int, jit: bool) -> float:
    x_train, y_train, x_val, y_val = data
    model = models.build_mlp(N_FEATURES, cfg.model, approach).model
    model.set_weights(weights)
    model.compile(optimizer="adam", loss=approach.loss, metrics=approach.metrics(), jit_compile=jit)

    def fit(n: int) -> None:
        model.fit(
            x_train,
            y_train,
            validation_data=(x_val, y_val),
            batch_size=BATCH,
            epochs=n,
            verbose=0,
        )

    fit(1)  # tracing
    start = time.perf_counter()
    fit(epochs)
    return (time.perf_counter() - start) / epochs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=20)
    parser.add_argument("--epochs", type=int, default=20)
    args = parser.parse_args()
    data = (*labelled(N_TRAIN, 0), *labelled(N_VAL, 1))
    cfg = config.compose(
        ["approach=rounding", "activation=soft_round", "model.hidden_sizes=[64,64]"]
    )
    approach = approaches.build(cfg, data[1])
    members = []
    for seed, alpha in enumerate(np.linspace(1.0, 20.0, args.members)):
        keras.utils.set_random_seed(seed)
        weights = models.build_mlp(N_FEATURES, cfg.model, approach).model.get_weights()
        members.append(Member(seed, weights, float(alpha)))
    rows = []
    for jit in (False, True):
        first = engine_seconds(approach, members, data, 1, jit)
        full = engine_seconds(approach, members, data, 1 + args.epochs, jit)
        per = (full - first) / (args.epochs * args.members)
        rows.append((f"engine, {args.members} stacked, XLA {'on' if jit else 'off'}", first, per))
    weights = members[0].initial_weights
    fits = [
        keras_epoch_seconds(cfg, approach, weights, data, args.epochs, jit) for jit in (False, True)
    ]
    for jit, epoch in zip((False, True), fits, strict=True):
        rows.append((f"Keras fit, one model, XLA {'on' if jit else 'off'}", None, epoch))
    print(
        "| how | first call s (trace + epoch 1) | ms per member-epoch | Keras fit XLA off / this |"
    )
    print("|---|---:|---:|---:|")
    for name, first, per in rows:
        shown = "-" if first is None else f"{first:.2f}"
        print(f"| {name} | {shown} | {per * 1e3:.2f} | {fits[0] / per:.1f} |")


if __name__ == "__main__":
    main()
