"""The values the result figures draw: each swept activation against its knob, and each
approach's best configuration per epoch. Statistics only; the drawing is in figures.py."""

from __future__ import annotations

from dataclasses import dataclass

from roundlab import approaches
from roundlab.report.headline import Headline
from roundlab.report.selection import (
    APPROACH_ORDER,
    Configuration,
    best_overall,
    selection_key,
    swept_families,
)
from roundlab.report.stats import Interval, mean_ci

HISTORY_LOSSES = ("loss", "val_loss")
HISTORY_EXACT_MATCH = ("exact_match", "val_exact_match")


@dataclass(frozen=True)
class SweepCurve:
    """One rounding activation on one dataset at each value of its knob (ascending), every
    metric a mean over seeds with its interval."""

    activation: str
    param: str
    values: list[float]
    val_exact_match: list[Interval]
    test_exact_match: list[Interval]
    test_mae: list[Interval]
    zero_grad_fraction: list[Interval]
    seeds: list[int]  # finished runs at each value
    best: int  # index of the value chosen on val


def sweep_curves(configs: list[Configuration]) -> list[SweepCurve]:
    """A curve per swept rounding activation with finished runs, in activation name order."""
    return [
        SweepCurve(
            activation,
            members[0].param[0],
            [c.param[1] for c in members],
            [c.metric("val", "exact_match") for c in members],
            [c.metric("test", "exact_match") for c in members],
            [c.metric("test", "mae") for c in members],
            [c.zero_grad_fraction() for c in members],
            [len(c.finished) for c in members],
            members.index(min(members, key=selection_key)),
        )
        for activation, members in swept_families(configs).items()
    ]


# The approaches each knob value is drawn against: the two of the source thread. The others
# (ordinal, poisson, the statsmodels references) are rows of the headline table; as lines they
# would crowd out the curve.
SWEEP_COMPARISONS = ("classification", "regression")


def sweep_references(h: Headline) -> dict[str, float | None]:
    """Test exact match of classification and regression, and of the constant baseline: the
    horizontal lines the sweep figure compares each knob value with."""
    refs: dict[str, float | None] = {}
    for approach in SWEEP_COMPARISONS:
        cfg = next((c for c in h.rows if c.approach == approach), None)
        refs[approach] = cfg.metric("test", "exact_match").mean if cfg else None
    refs["constant baseline"] = h.baseline[("test", "exact_match")].mean
    return refs


@dataclass(frozen=True)
class LearningCurve:
    """One configuration's training history: history key -> mean over seeds per epoch."""

    title: str
    loss_label: str
    history: dict[str, list[Interval]]  # only the keys some finished run recorded
    loss_is_positive: bool  # every recorded loss > 0, so a log axis shows all of it


def best_configurations(configs: list[Configuration]) -> list[Configuration]:
    """The best configuration on val of each trained approach, in approach order (the
    references are fits, with no epochs to draw)."""
    best = (best_overall(configs, a) for a in APPROACH_ORDER if a not in approaches.references())
    return [c for c in best if c is not None]


def learning_curves(best: list[Configuration]) -> list[LearningCurve]:
    """A curve per configuration that recorded a history, in the order given."""
    return [_learning_curve(c) for c in best if any(r.history for r in c.finished)]


def _learning_curve(cfg: Configuration) -> LearningCurve:
    history = {}
    for key in HISTORY_LOSSES + HISTORY_EXACT_MATCH:
        runs = [r for r in cfg.finished if r.history.get(key)]
        if runs:
            epochs = max(len(r.history[key]) for r in runs)
            history[key] = [
                mean_ci(r.history[key][e] for r in runs if e < len(r.history[key]))
                for e in range(epochs)
            ]
    losses = [
        v
        for r in cfg.finished
        for k in HISTORY_LOSSES
        for v in r.history.get(k, [])
        if v is not None
    ]
    return LearningCurve(
        cfg.title,
        loss_label(cfg),
        history,
        bool(losses) and min(losses) > 0,
    )


def loss_label(cfg: Configuration) -> str:
    """What the loss of ``cfg`` measures, from the approach and the recorded trainer config."""
    if cfg.approach == "classification":
        return "cross-entropy (nats)"
    if cfg.approach == "ordinal":
        return "binary cross-entropies (nats)"
    if cfg.approach == "poisson":  # without log y!, so it can be negative
        return "Poisson neg. log-likelihood (nats)"
    trainer = (cfg.runs[0].config or {}).get("trainer", {}) if cfg.runs else {}
    if cfg.approach == "regression" and trainer.get("loss") == "huber":
        return "Huber (label units)"
    return "squared error (label units²)"
