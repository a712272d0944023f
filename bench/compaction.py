"""What compaction saves: a stacked group whose members stop at mixed epochs, with and without it.

40 members of a 64-64 MLP with a soft_round head (alpha from 1 to 20) on 1500 training and 300
validation examples of 10 features, batch 64 (24 steps an epoch), each training its own number
of epochs, spread evenly from 10 to 150 (``member_epochs``, the refit path: the same stops
every time, as early stopping at those epochs would give). ``roundlab.engine.train_members``
with ``compact=False``, ``compact=True`` (the CPU rule: a member leaves right after its last
epoch) and ``compact=True`` under XLA's rule (members leave once the live ones fit in half of
the stack; run here without XLA, to show what the CPU would lose by it), in turn, ``--repeats``
times each; the median wall time, and the member-epochs computed (members in the program summed
over epochs, live or not).

Then what the rule weighs, from the same process: an epoch of a stack of 10, 20 and 40 members
(median of ``--repeats`` runs of 1 and 11 epochs: (t(11) - t(1)) / 10), the one-off cost of a
program (trace and first epoch, t(1) minus an epoch), and one compaction (the gather of the
live members' rows) of the 40. Prints markdown.

    python bench/compaction.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

from roundlab import approaches  # noqa: E402
from roundlab.engine import Member, compaction, epoch_program, models, train_members  # noqa: E402
from roundlab.run import config  # noqa: E402

N_TRAIN, N_VAL, N_FEATURES, BATCH, HIDDEN, MEMBERS = 1500, 300, 10, 64, [64, 64], 40
MEMBER_EPOCHS = [0]
SELECTS: list[float] = []


def labelled(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
    y = np.clip(np.round(5 + 2 * x[:, 0] - x[:, 1] + x[:, 2] * x[:, 3]), 0, 12)
    return x, y.astype(np.float32)


def counting(call):
    def counted(program, orders, keep):
        MEMBER_EPOCHS[0] += orders.shape[1]
        return call(program, orders, keep)

    return counted


def timed(select):
    def timed_select(program, rows):
        start = time.perf_counter()
        select(program, rows)
        SELECTS.append(time.perf_counter() - start)

    return timed_select


def run(approach, members, data, epochs, compact: bool) -> tuple[float, int]:
    MEMBER_EPOCHS[0] = 0
    start = time.perf_counter()
    outcomes = train_members(
        approach,
        members,
        *data,
        hidden_sizes=HIDDEN,
        batch_size=BATCH,
        epochs=max(epochs),
        member_epochs=epochs,
        compact=compact,
    )
    seconds = time.perf_counter() - start
    assert [o.epochs_run for o in outcomes] == list(epochs)
    return seconds, MEMBER_EPOCHS[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    epoch_program.EpochProgram.__call__ = counting(epoch_program.EpochProgram.__call__)
    epoch_program.EpochProgram.select = timed(epoch_program.EpochProgram.select)
    data = (*labelled(N_TRAIN, 0), *labelled(N_VAL, 1))
    cfg = config.compose(
        ["approach=rounding", "activation=soft_round", "model.hidden_sizes=[64,64]"]
    )
    approach = approaches.build(cfg, data[1])
    members = []
    for seed, alpha in enumerate(np.linspace(1.0, 20.0, MEMBERS)):
        keras.utils.set_random_seed(seed)
        weights = models.build_mlp(N_FEATURES, cfg.model, approach).model.get_weights()
        members.append(Member(seed, weights, float(alpha)))
    epochs = [int(e) for e in np.round(np.linspace(10, 150, MEMBERS))]
    rule = compaction.worth_compacting

    def xla_rule(live: int, stack: int, jit_compile: bool) -> bool:
        return rule(live, stack, True)

    ways = {
        "off": (False, rule),
        "on (the CPU rule)": (True, rule),
        "on, XLA's rule": (True, xla_rule),
    }
    times: dict[str, list[float]] = {name: [] for name in ways}
    computed = {}
    for _ in range(args.repeats):
        for name, (compact, chosen) in ways.items():
            compaction.worth_compacting = chosen
            seconds, computed[name] = run(approach, members, data, epochs, compact)
            times[name].append(seconds)
    compaction.worth_compacting = rule
    print(f"member-epochs trained: {sum(epochs)}")
    print("| compaction | wall s (median) | runs s | member-epochs computed |")
    print("|---|---:|---:|---:|")
    for name in ways:
        shown = ", ".join(f"{t:.2f}" for t in times[name])
        median = statistics.median(times[name])
        print(f"| {name} | {median:.2f} | {shown} | {computed[name]} |")
    print()
    SELECTS.clear()
    run(approach, members, data, [1] * (MEMBERS - 1) + [2], True)
    print(f"one compaction of {MEMBERS} members to 1: {SELECTS[0] * 1e3:.1f} ms")
    print()
    print("| members | ms per epoch | one-off s (trace + first epoch - an epoch) |")
    print("|---:|---:|---:|")
    for size in (10, 20, 40):
        group = members[:size]
        one, eleven = [], []
        for _ in range(args.repeats):
            one.append(run(approach, group, data, [1] * size, False)[0])
            eleven.append(run(approach, group, data, [11] * size, False)[0])
        epoch = (statistics.median(eleven) - statistics.median(one)) / 10
        print(f"| {size} | {epoch * 1e3:.1f} | {statistics.median(one) - epoch:.2f} |")


if __name__ == "__main__":
    main()
