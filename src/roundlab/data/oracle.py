"""The oracle of each generator: the best exact match and MAE any predictor can reach.

The oracle is the Bayes predictor under the generator's own model (the noise-free rule and the
known noise), scored on the split's actual rows, so it compares directly with a trained
network's numbers on the same rows. Exact match is maximised by predicting the mode of
``y | x`` and MAE minimised by predicting its median; when the two differ the oracle's exact
match and MAE come from two different predictors.

The extrapolate split keeps rows by their label (outside the training range). The oracle there
is still the predictor that knows the rule, not one that also knows of that selection: it is
what a network that learned the rule perfectly would score.

Oracles map split -> {"exact_match": float, "mae": float}. Generators without a known rule
(diabetes, csv) have none (None).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from roundlab.data.sampling import Arrays, affine, poisson_quantile, round_half_up
from roundlab.data.schemas import AffineConfig, CountConfig, PoissonConfig
from roundlab.data.synthetic import count_labels
from roundlab.metrics import integer_metrics

Oracle = dict[str, dict[str, float]]
Predictor = Callable[[np.ndarray], np.ndarray]  # float32 features -> int64 predictions


def scored(splits: dict[str, Arrays], mode: Predictor, median: Predictor | None = None) -> Oracle:
    """Exact match of ``mode`` and MAE of ``median`` (default: ``mode``) on every split."""
    median = median or mode
    return {
        name: {
            "exact_match": integer_metrics(y, mode(x))["exact_match"],
            "mae": integer_metrics(y, median(x))["mae"],
        }
        for name, (x, y) in splits.items()
    }


def affine_oracle(cfg: AffineConfig, splits: dict[str, Arrays]) -> Oracle:
    """``round_half_up(w·x + b)``: ``y = round_half_up(w·x + b + noise·ε)`` is the normal
    ``N(w·x + b, noise²)`` discretised onto the integers, whose mode and median are both the
    integer nearest its mean. Noise 0: exact match 1, MAE 0."""
    return scored(splits, lambda x: round_half_up(affine(x, cfg.weights, cfg.bias)))


def poisson_rate(cfg: PoissonConfig, x: np.ndarray) -> np.ndarray:
    return np.exp(affine(x, cfg.weights, cfg.bias))


def poisson_mode(rate: np.ndarray) -> np.ndarray:
    """``floor(rate)``, a mode of ``Poisson(rate)`` (``P(k)/P(k − 1) = rate/k``). An integer
    rate has two modes, ``rate − 1`` and ``rate``, equally likely; this picks ``rate``."""
    return np.floor(rate).astype(np.int64)


def poisson_median(rate: np.ndarray) -> np.ndarray:
    """The smallest ``k`` with ``P(Poisson(rate) <= k) >= 1/2``, from the exact CDF (not the
    approximation ``rate + 1/3 − 1/(50·rate)``)."""
    return poisson_quantile(np.full(len(rate), 0.5), rate)


def poisson_oracle(cfg: PoissonConfig, splits: dict[str, Arrays]) -> Oracle:
    """Exact match of the mode of ``Poisson(exp(w·x + b))``, MAE of its median: two
    predictors (e.g. rate 2.5: mode 2, median 2; rate 0.8: mode 0, median 1)."""
    return scored(
        splits,
        lambda x: poisson_mode(poisson_rate(cfg, x)),
        lambda x: poisson_median(poisson_rate(cfg, x)),
    )


def count_oracle(cfg: CountConfig, splits: dict[str, Arrays]) -> Oracle:
    """The rule ``#{j : x_j > threshold}`` itself: exact match 1, MAE 0 (noise-free)."""
    return scored(splits, lambda x: count_labels(x, cfg.threshold))


def digit_sum_oracle(cfg: object, splits: dict[str, Arrays]) -> Oracle:
    """A perfect digit reader: it reads both digits and adds them, and each label is the
    exact sum of two labelled digits, so exact match 1 and MAE 0 on every split. The oracle
    assumes that reader; how well a network can read these 8×8 images is not part of it."""
    return {name: {"exact_match": 1.0, "mae": 0.0} for name in splits}


def no_oracle(cfg: object, splits: dict[str, Arrays]) -> None:
    """Real data (diabetes, csv): the rule and the noise are unknown, so there is no oracle."""
    return None
