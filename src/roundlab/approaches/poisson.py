"""poisson: one linear unit read as the log-rate ``ℓ = w·h + b`` of a Poisson count, trained
with the Poisson negative log-likelihood, read out by the rounded mean.

Loss per example: ``exp(ℓ) − y·ℓ``, the negative log-likelihood ``λ − y log λ + log y!`` at
``λ = exp(ℓ)`` without ``log y!``, which does not depend on the network (so the loss can be
negative). Labels must be non-negative counts. Keras' ``poisson`` loss differs only by using
``log(λ + eps)``.

Readout: the rate rounded half up, ``floor(λ + 0.5)``: the integer nearest the predicted mean,
which minimises the expected squared error ``Var(Y) + (λ − n)²`` over integers n, the same
target as "MSE, then round" (a tie has probability zero for a real-valued rate, so the tie rule
is only stated, not consequential). The Poisson mode ``floor(λ)`` (the most likely count; for an
integer λ, λ − 1 is as likely) is recorded as the extra readout ``mode``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from keras import ops

from roundlab.approaches.head import Approach, flat, labels
from roundlab.approaches.settings import Settings
from roundlab.errors import ConfigError

# exp(ℓ) overflows float32 above ℓ = 88.7, and the int64 readout above ℓ = 43.7 (9.2e18); a
# log-rate of 40 is a rate of 2.4e17, beyond any count. Above it the loss is flat (no gradient)
# but finite, and the readout saturates instead of wrapping around.
MAX_LOG_RATE = 40.0


def check_counts(approach: str, y_train: np.ndarray) -> None:
    """Refuse negative training labels: the Poisson likelihood is for counts (with y < 0 the
    loss has no minimum)."""
    lowest = float(np.min(y_train))
    if lowest < 0:
        raise ConfigError(
            f"approach={approach} needs non-negative count labels in the training split. "
            f"Received: lowest training label={lowest:g}"
        )


def rounded_mean(rate_: np.ndarray) -> np.ndarray:
    """``floor(λ + 0.5)``: the readout (see the module docstring)."""
    return np.floor(np.asarray(rate_, dtype=np.float64) + 0.5).astype(np.int64)


def poisson_mode(rate_: np.ndarray) -> np.ndarray:
    """``floor(λ)``: the Poisson mode of the rate."""
    return np.floor(np.asarray(rate_, dtype=np.float64)).astype(np.int64)


def build(settings: Settings, y_train: np.ndarray) -> Approach:
    """Refuses negative training labels; the bias starts at the log of the training mean."""
    check_counts("poisson", y_train)
    approach = Approach(
        name="poisson",
        units=1,
        # Start from the constant predictor, as scalar_head does (0.5 keeps an all-zero
        # training split finite).
        bias=float(np.log(max(np.mean(y_train), 0.5))),
        loss=poisson_nll,
        decode_tf=lambda out: ops.floor(rate(out) + 0.5),
        decode=lambda out: rounded_mean(rate(out)),
    )
    approach.readouts = {"mode": lambda out: poisson_mode(rate(out))}
    return approach


def log_rate(out: Any) -> Any:
    return ops.minimum(flat(out), MAX_LOG_RATE)


def rate(out: Any) -> Any:
    """``λ = exp(ℓ)``, ℓ clipped at :data:`MAX_LOG_RATE`."""
    return ops.exp(log_rate(out))


def poisson_nll(y_true: Any, out: Any) -> Any:
    """Per example ``exp(ℓ) − y·ℓ`` (``log y!`` dropped)."""
    ell = log_rate(out)
    return ops.exp(ell) - labels(y_true) * ell
