"""Typed schemas of the dataset configs in ``conf/dataset/``.

Each ``conf/dataset/<name>.yaml`` starts with ``defaults: [base_<generator>, _self_]``, so Hydra
checks its types against the dataclass stored under ``dataset/base_<generator>`` (see
:func:`roundlab.data.registry.register_configs`). Fields without a default are ``???``
(mandatory): the YAML file is the single place that holds their values. ``check()`` then
refuses values that have the right type but are impossible (a negative size, an empty range),
naming the parameter and the value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from omegaconf import MISSING

# Labels of digit_sum: the sum of two digits 0..9.
DIGIT_SUM_MAX = 18
# poisson: rates up to exp(6.5) ~ 665 keep exp(-rate) a normal float64 (see sampling.poisson).
MAX_GENERATED_LOG_RATE = 6.5


def require(condition: bool, what: str, **received: object) -> None:
    """Raise ``ValueError("<what>. Received: name=value")`` unless ``condition`` holds."""
    if not condition:
        shown = ", ".join(f"{key}={value!r}" for key, value in received.items())
        raise ValueError(f"{what}. Received: {shown}")


@dataclass
class DatasetConfig:
    """Fields every dataset has.

    ``name`` names the directory ``data/<name>/`` and the config file; ``generator`` picks the
    code that makes the data (so ``conf/dataset/houses.yaml`` may use ``generator: csv``).
    ``standardize`` rescales every feature to zero mean and unit variance with the mean and
    standard deviation of the training split (stored in meta.json).
    """

    name: str = MISSING
    generator: str = MISSING
    seed: int = MISSING
    standardize: bool = MISSING

    def check(self) -> None:
        require(bool(self.name), "name must be a non-empty string", name=self.name)
        require(self.seed >= 0, "seed must be a non-negative integer", seed=self.seed)


@dataclass
class SizedConfig(DatasetConfig):
    """Generators that draw as many rows as asked for each split."""

    n_train: int = MISSING
    n_val: int = MISSING
    n_test: int = MISSING
    n_extrapolate: int = MISSING

    def check(self) -> None:
        super().check()
        for field in ("n_train", "n_val", "n_test"):
            value = getattr(self, field)
            require(value >= 1, f"{field} must be a positive integer", **{field: value})
        require(
            self.n_extrapolate >= 0,
            "n_extrapolate must be a non-negative integer (0: no extrapolate split)",
            n_extrapolate=self.n_extrapolate,
        )


@dataclass
class BoxConfig(SizedConfig):
    """Features uniform in the box [low, high]^d around a linear predictor w·x + b; the
    extrapolate split comes from the box widened by ``extrapolate_margin·(high − low)``."""

    weights: list[float] = MISSING
    bias: float = MISSING
    low: float = MISSING
    high: float = MISSING
    extrapolate_margin: float = MISSING

    def check(self) -> None:
        require(
            len(self.weights) >= 1, "weights must hold one weight per feature", weights=self.weights
        )
        require(
            all(math.isfinite(w) for w in self.weights),
            "weights must be finite",
            weights=self.weights,
        )
        require(math.isfinite(self.bias), "bias must be finite", bias=self.bias)
        require(
            math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high,
            "the feature box [low, high] must be a non-empty finite range (low < high)",
            low=self.low,
            high=self.high,
        )
        require(
            math.isfinite(self.extrapolate_margin) and self.extrapolate_margin > 0,
            "extrapolate_margin must be a positive finite number",
            extrapolate_margin=self.extrapolate_margin,
        )
        super().check()


@dataclass
class AffineConfig(BoxConfig):
    generator: str = "affine"
    noise: float = MISSING

    def check(self) -> None:
        super().check()
        require(
            math.isfinite(self.noise) and self.noise >= 0,
            "noise must be a finite standard deviation >= 0",
            noise=self.noise,
        )


@dataclass
class PoissonConfig(BoxConfig):
    generator: str = "poisson"

    def check(self) -> None:
        super().check()
        margin = self.extrapolate_margin * (self.high - self.low)
        low, high = self.low - margin, self.high + margin
        top = self.bias + sum(max(w * low, w * high) for w in self.weights)
        require(
            top <= MAX_GENERATED_LOG_RATE,
            f"the largest log-rate bias + w.x over the (widened) feature box must be <= "
            f"{MAX_GENERATED_LOG_RATE} (exp(-rate) must not underflow)",
            log_rate=top,
        )


@dataclass
class LabelWindowConfig(SizedConfig):
    """Labels 0..``label_top()``: train/val/test keep ``train_label_min..train_label_max``, the
    extrapolate split keeps the labels outside that window."""

    train_label_min: int = MISSING
    train_label_max: int = MISSING

    def label_top(self) -> int:
        raise NotImplementedError

    def check(self) -> None:
        super().check()
        top = self.label_top()
        require(
            0 <= self.train_label_min <= self.train_label_max <= top,
            f"the training labels must satisfy 0 <= train_label_min <= train_label_max <= {top}",
            train_label_min=self.train_label_min,
            train_label_max=self.train_label_max,
        )
        require(
            self.n_extrapolate == 0 or self.train_label_min > 0 or self.train_label_max < top,
            f"an extrapolate split needs labels outside train_label_min..train_label_max, which "
            f"cover every label 0..{top}: narrow them or set n_extrapolate=0",
            train_label_min=self.train_label_min,
            train_label_max=self.train_label_max,
            n_extrapolate=self.n_extrapolate,
        )


@dataclass
class CountConfig(LabelWindowConfig):
    """How many of ``n_features`` uniform features exceed ``threshold``: labels 0..n_features.

    No feature is drawn within ``margin`` of the threshold (see
    :func:`roundlab.data.synthetic.count_dataset`): ``0 <= margin < min(threshold,
    1 − threshold)``.
    """

    generator: str = "count"
    n_features: int = MISSING
    threshold: float = MISSING
    margin: float = MISSING

    def label_top(self) -> int:
        return self.n_features

    def check(self) -> None:
        # n_features first: it bounds the label window that the base class checks.
        require(self.n_features >= 1, "n_features must be >= 1", n_features=self.n_features)
        require(0 < self.threshold < 1, "threshold must be in (0, 1)", threshold=self.threshold)
        require(
            0 <= self.margin < min(self.threshold, 1 - self.threshold),
            "margin must satisfy 0 <= margin < min(threshold, 1 - threshold), so that features "
            "remain on both sides of the band around the threshold",
            margin=self.margin,
            threshold=self.threshold,
        )
        super().check()


def check_fractions(first: str, a: float, second: str, b: float) -> None:
    require(
        0 < a < 1 and 0 < b < 1 and a + b < 1,
        f"{first} and {second} must lie in (0, 1) and sum to less than 1",
        **{first: a, second: b},
    )


@dataclass
class DigitSumConfig(LabelWindowConfig):
    """The sum of the two digits in a pair of handwritten-digit images: labels 0..18; the
    fractions of the images kept apart for val and test pairs."""

    generator: str = "digit_sum"
    val_images: float = MISSING
    test_images: float = MISSING

    def check(self) -> None:
        check_fractions("val_images", self.val_images, "test_images", self.test_images)
        super().check()

    def label_top(self) -> int:
        return DIGIT_SUM_MAX
