"""Synthetic generators: affine, count, poisson. Sizes, seeds, ranges and noise come from the
config (``conf/dataset/<name>.yaml``); see :mod:`roundlab.data.sampling` for why the same seed
gives the same bytes on any machine, and :mod:`roundlab.data.oracle` for each one's oracle."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from roundlab.data.sampling import (
    Arrays,
    affine,
    draw_until,
    inside,
    outside,
    poisson,
    rng_for,
    round_half_up,
    standard_normal,
    uniform_box,
    uniform_outside_band,
)
from roundlab.data.schemas import AffineConfig, CountConfig, PoissonConfig


class Generated(NamedTuple):
    """What a generator makes: the splits, the feature names and, for data read from files,
    where it came from (``provenance``, stored in meta.json; None for synthetic data)."""

    splits: dict[str, Arrays]
    feature_names: list[str]
    provenance: dict[str, Any] | None = None


def _names(d: int) -> list[str]:
    return [f"x{j}" for j in range(d)]


def _in_range_splits(cfg, draw) -> tuple[np.random.Generator, dict[str, Arrays]]:
    rng = rng_for(cfg.seed)
    return rng, {
        "train": draw(rng, cfg.n_train),
        "val": draw(rng, cfg.n_val),
        "test": draw(rng, cfg.n_test),
    }


def affine_dataset(cfg: AffineConfig) -> Generated:
    """``y = round(w·x + b + noise·ε)``, ``x ~ U[low, high]^d``, ``ε ~ N(0, 1)``, ties rounded up.

    ``d = len(weights)``. Train, val and test are drawn from the box. Extrapolate: points drawn
    from the box widened by ``extrapolate_margin·(high − low)`` on every side, keeping those
    whose label lies outside the training split's label range [min, max] (rejection sampling).
    It is impossible only when no point of the widened box has such a label (all weights 0,
    or too small a margin): then a ValueError names ``extrapolate_margin``.

    Oracle: ``round_half_up(w·x + b)``, the mode and median of the label given ``x``; exact
    match 1 and MAE 0 when ``noise = 0``, below that otherwise.
    """
    d = len(cfg.weights)

    def box(low: float, high: float):
        def draw(rng: np.random.Generator, n: int) -> Arrays:
            x = uniform_box(rng, n, d, low, high)
            values = affine(x, cfg.weights, cfg.bias)
            if cfg.noise > 0:
                values = values + cfg.noise * standard_normal(rng, n)
            return x, round_half_up(values)

        return draw

    rng, splits = _in_range_splits(cfg, box(cfg.low, cfg.high))
    if cfg.n_extrapolate:
        splits["extrapolate"] = _outside_train(rng, cfg, splits, box)
    return Generated(splits, _names(d))


def poisson_dataset(cfg: PoissonConfig) -> Generated:
    """Poisson GLM: ``y ~ Poisson(exp(w·x + b))``, ``x ~ U[low, high]^d``: noisy counts.

    ``d = len(weights)``. Train, val and test are drawn from the box. Extrapolate: points drawn
    from the box widened by ``extrapolate_margin·(high − low)`` on every side, keeping those
    whose (noisy) count lies outside the training split's label range; with positive weights
    these are mostly the larger counts of the widened corner. The largest log-rate over the
    widened box must be <= 6.5 (rate ~665). Impossible only when the widened box yields no
    such count: then a ValueError names ``extrapolate_margin``.

    Oracle: exact match of the mode ``floor(rate)`` and MAE of the median of
    ``Poisson(rate)`` (two different predictors), both below perfect: the counts are noisy.
    """
    d = len(cfg.weights)

    def box(low: float, high: float):
        def draw(rng: np.random.Generator, n: int) -> Arrays:
            x = uniform_box(rng, n, d, low, high)
            return x, poisson(rng, np.exp(affine(x, cfg.weights, cfg.bias)))

        return draw

    rng, splits = _in_range_splits(cfg, box(cfg.low, cfg.high))
    if cfg.n_extrapolate:
        splits["extrapolate"] = _outside_train(rng, cfg, splits, box)
    return Generated(splits, _names(d))


def _outside_train(rng, cfg, splits, box) -> Arrays:
    train_y = splits["train"][1]
    lo, hi = int(train_y.min()), int(train_y.max())
    margin = cfg.extrapolate_margin * (cfg.high - cfg.low)
    return draw_until(
        rng,
        cfg.n_extrapolate,
        box(cfg.low - margin, cfg.high + margin),
        outside(lo, hi),
        f"could not draw n_extrapolate={cfg.n_extrapolate} rows with labels outside the "
        f"training range [{lo}, {hi}] from the feature box widened by extrapolate_margin: "
        f"widen it or set n_extrapolate=0. Received: extrapolate_margin={cfg.extrapolate_margin}",
    )


def count_labels(x: np.ndarray, threshold: float) -> np.ndarray:
    """``#{j : x_j > threshold}`` per row, int64, from the stored float32 features."""
    return (x.astype(np.float64) > threshold).sum(axis=1).astype(np.int64)


def count_dataset(cfg: CountConfig) -> Generated:
    """``y = #{j : x_j > threshold}`` (0..d, d = ``n_features``), each ``x_j`` uniform on
    ``[0, 1)`` minus the band ``(threshold − margin, threshold + margin)``.

    Why the margin: with features arbitrarily close to the threshold, the network body must
    learn a sum of sharp steps; with 12 features and no margin the default 64-64 MLP stayed
    near 0.5 exact match on 1500 rows, on its training split as well, whatever its output
    head, so the dataset measured the body, not the head. With every feature at least
    ``margin`` from the threshold, a smooth function of the features (a sum of ramps) gets
    each label exactly, so differences between approaches are the heads'.
    ``P(x_j > threshold) = (1 − threshold − margin) / (1 − 2·margin)``.

    Train, val and test keep the draws whose label lies in ``[train_label_min,
    train_label_max]``; extrapolate keeps the draws whose label lies outside it (both by
    rejection from the same distribution, so an extrapolate row differs from a training row
    only in how many features exceed the threshold). Impossible when the window is all of 0..d
    (refused by the config check unless ``n_extrapolate = 0``).

    Oracle: the rule itself, exact match 1 and MAE 0 on every split (labels are noise-free).
    """
    d = cfg.n_features

    def draw(rng: np.random.Generator, n: int) -> Arrays:
        x = uniform_outside_band(rng, n, d, cfg.threshold, cfg.margin)
        # Compare the stored float32 values, so the label is exactly what the features say.
        return x, count_labels(x, cfg.threshold)

    lo, hi = cfg.train_label_min, cfg.train_label_max

    def rejected(what: str) -> str:
        return (
            f"labels {what} [{lo}, {hi}] are too rare under threshold={cfg.threshold} with "
            f"n_features={d}: move the threshold or the window. Received: "
            f"train_label_min={lo}, train_label_max={hi}, threshold={cfg.threshold}"
        )

    rng = rng_for(cfg.seed)
    splits = {
        name: draw_until(rng, n, draw, inside(lo, hi), rejected("inside"))
        for name, n in (("train", cfg.n_train), ("val", cfg.n_val), ("test", cfg.n_test))
    }
    if cfg.n_extrapolate:
        splits["extrapolate"] = draw_until(
            rng, cfg.n_extrapolate, draw, outside(lo, hi), rejected("outside")
        )
    return Generated(splits, _names(d))
