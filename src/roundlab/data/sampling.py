"""Random draws shared by the generators, and standardisation (cutting a fixed table into
splits is :mod:`roundlab.data.splits`).

Byte-identical output for a seed on any machine: every random number comes from
``Generator.random``/``integers``/``permutation`` on PCG64, which turn the integer stream into
values with exact integer arithmetic and never reject a draw on a floating-point comparison, so
no CPU or math-library difference can shift the stream. Features are affine images of those
uniforms (IEEE-exact ``+``/``*``) cast to float32, and labels are computed from the stored
float32 features. Transcendental functions (``log``, ``cos``, ``exp``) appear only after the
draws, element by element: a last-bit difference between math libraries could change at most
a label that sits on a rounding boundary to within one ulp (probability ~1e-16 per row), and
never the rows after it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

Arrays = tuple[np.ndarray, np.ndarray]
# Rejection sampling stops after this many rounds; each round is sized from the acceptance
# rate seen so far, so reaching it means the accepted region is (nearly) empty.
MAX_ROUNDS = 50
MAX_CHUNK = 1 << 20


def rng_for(seed: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(seed))


def uniform_box(rng: np.random.Generator, n: int, d: int, low: float, high: float) -> np.ndarray:
    """``n`` points uniform in ``[low, high]^d``, float32."""
    return (low + (high - low) * rng.random((n, d))).astype(np.float32)


def affine(x: np.ndarray, weights: Sequence[float], bias: float) -> np.ndarray:
    """``x @ weights + bias`` in float64, summed feature by feature in a fixed order.

    Not ``np.dot``: BLAS may sum in a CPU-dependent order, which could move a label.
    """
    total = np.full(len(x), float(bias))
    for j, w in enumerate(weights):
        total = total + float(w) * x[:, j].astype(np.float64)
    return total


def round_half_up(values: np.ndarray) -> np.ndarray:
    """``floor(v + 0.5)`` as int64: ties go up (ties have probability 0 for continuous values)."""
    return np.floor(values + 0.5).astype(np.int64)


def standard_normal(rng: np.random.Generator, n: int) -> np.ndarray:
    """Box-Muller from two uniforms (see the module docstring for why not ``rng.normal``)."""
    u1 = 1.0 - rng.random(n)  # in (0, 1]: log(u1) is finite
    u2 = rng.random(n)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def poisson(rng: np.random.Generator, rate: np.ndarray) -> np.ndarray:
    """Poisson counts by inversion of the CDF, one uniform per row.

    ``rate`` must be <= 700 so that ``exp(-rate)`` stays a normal float64.
    """
    return poisson_quantile(rng.random(len(rate)), rate)


def poisson_quantile(u: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """The smallest ``k`` with ``P(Poisson(rate) <= k) >= u``, row by row, from the exact CDF
    (summed term by term in float64); ``u = 0.5`` gives the median.

    ``rate`` must be <= 700 so that ``exp(-rate)`` stays a normal float64.
    """
    term = np.exp(-rate)
    cdf = term.copy()
    k = np.zeros(len(rate), dtype=np.int64)
    # Beyond mean + 40 sd (+40) the remaining mass is far below float64 resolution.
    top = float(rate.max(initial=0.0))
    k_max = math.ceil(top + 40.0 * math.sqrt(top) + 40.0)
    for step in range(1, k_max + 1):
        below = u > cdf
        if not below.any():
            break
        term = term * rate / step
        cdf = cdf + term
        k = k + below
    return k


def uniform_outside_band(
    rng: np.random.Generator, n: int, d: int, threshold: float, margin: float
) -> np.ndarray:
    """``n`` points uniform in ``[0, 1)^d`` minus the band ``(threshold − margin,
    threshold + margin)`` on every axis, float32.

    One uniform ``u`` per value, scaled onto ``[0, 1 − width)`` and shifted past the band when
    it lands at or above its lower edge, so the stream (and the bytes per seed) stays exact.
    The edges are the float32 numbers just outside the band, so no value falls inside it after
    the cast to float32; ``margin = 0`` gives ``rng.random`` cast to float32, as before.
    """
    u = rng.random((n, d))
    if margin == 0:
        return u.astype(np.float32)
    lower = float(np.nextafter(np.float32(threshold - margin), np.float32(-np.inf)))
    upper = float(np.nextafter(np.float32(threshold + margin), np.float32(np.inf)))
    width = upper - lower
    scaled = u * (1.0 - width)
    return np.where(scaled < lower, scaled, scaled + width).astype(np.float32)


def draw_until(
    rng: np.random.Generator,
    n: int,
    draw: Callable[[np.random.Generator, int], Arrays],
    keep: Callable[[np.ndarray], np.ndarray],
    failure: str,
) -> Arrays:
    """Rejection sampling: the first ``n`` rows of ``draw`` whose labels pass ``keep``.

    ``failure`` is the ValueError message when the accepted region is (nearly) empty.
    """
    xs, ys, have, chunk = [], [], 0, max(2 * n, 256)
    for _ in range(MAX_ROUNDS):
        if have >= n:
            break
        x, y = draw(rng, chunk)
        accepted = keep(y)
        xs.append(x[accepted])
        ys.append(y[accepted])
        have += int(accepted.sum())
        rate = max(float(accepted.mean()), 1e-4)
        chunk = min(MAX_CHUNK, math.ceil((n - have) / rate * 1.2) + 64)
    if have < n:
        raise ValueError(failure)
    return np.concatenate(xs)[:n], np.concatenate(ys)[:n]


def outside(lo: int, hi: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda y: (y < lo) | (y > hi)


def inside(lo: int, hi: int) -> Callable[[np.ndarray], np.ndarray]:
    return lambda y: (y >= lo) & (y <= hi)


def standardize(splits: dict[str, Arrays]) -> tuple[dict[str, Arrays], dict[str, list[float]]]:
    """Z-score every feature with the training split's mean and standard deviation.

    A constant feature keeps scale 1 (dividing by its zero deviation would give NaN).
    """
    train = splits["train"][0].astype(np.float64)
    mean = train.mean(axis=0)
    std = train.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    scaled = {
        name: (((x.astype(np.float64) - mean) / std).astype(np.float32), y)
        for name, (x, y) in splits.items()
    }
    return scaled, {"mean": mean.tolist(), "std": std.tolist()}
