"""Mean and 95% confidence interval over seeds, and the smallest difference two of them could
have told apart.

The interval is Student's t: ``mean ± t_{1-(1-c)/2, n-1} · s / sqrt(n)`` with ``s`` the sample
standard deviation (``ddof=1``). Seeds are few (3 to 10), so the normal quantile 1.96 would make
the interval too narrow by 2.2× at n = 3 (t = 4.30). With one seed there is no estimate of the
spread, so the interval is *unavailable* (``half_width is None``), never zero. A deterministic
value (a statsmodels reference: refitting gives the same number) is *exact* (:func:`exact`): a
point with no spread, compared with a network's interval as a fixed number.
Values that are not finite (a diverged metric is stored as null) are left out and counted in
``dropped``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from scipy import stats as _scipy_stats

CONFIDENCE = 0.95
# The detectable difference's test size (two-sided) and power.
ALPHA = 0.05
POWER = 0.8


@dataclass(frozen=True)
class Interval:
    """``mean ± half_width`` from ``n`` values; ``half_width`` and ``sd`` (the sample standard
    deviation) are None when ``n < 2``, except for an ``exact`` value (both 0)."""

    mean: float
    half_width: float | None
    n: int
    dropped: int = 0
    sd: float | None = None
    exact: bool = False

    @property
    def available(self) -> bool:
        return self.half_width is not None

    @property
    def lo(self) -> float:
        return self.mean - (self.half_width or 0.0)

    @property
    def hi(self) -> float:
        return self.mean + (self.half_width or 0.0)

    def overlaps(self, other: Interval) -> bool:
        """Whether the two intervals share a point; an unavailable interval overlaps everything,
        because without a spread nothing can be told apart."""
        if not (self.available and other.available):
            return True
        return self.lo <= other.hi and other.lo <= self.hi

    def format(self, digits: int = 3) -> str:
        """``0.812 ± 0.021`` (n=3); ``0.812 (n=1, no CI)`` when the interval is unavailable."""
        if self.n == 0:
            return "n/a"
        if self.exact:
            return f"{self.mean:.{digits}f} (deterministic)"
        if self.half_width is None:
            return f"{self.mean:.{digits}f} (n={self.n}, no CI)"
        return f"{self.mean:.{digits}f} ± {self.half_width:.{digits}f}"


def mean_ci(values: Iterable[float | None], confidence: float = CONFIDENCE) -> Interval:
    """The mean of the finite ``values`` and the half-width of its t confidence interval.

    ``confidence`` must lie in (0, 1). No finite value gives ``Interval(nan, None, 0)``.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1). Received: confidence={confidence}")
    raw = list(values)
    finite = [float(v) for v in raw if v is not None and math.isfinite(v)]
    dropped = len(raw) - len(finite)
    n = len(finite)
    if n == 0:
        return Interval(math.nan, None, 0, dropped)
    mean = math.fsum(finite) / n
    if n == 1:
        return Interval(mean, None, 1, dropped)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in finite) / (n - 1))
    t = float(_scipy_stats.t.ppf(1.0 - (1.0 - confidence) / 2.0, df=n - 1))
    return Interval(mean, t * sd / math.sqrt(n), n, dropped, sd)


def exact(iv: Interval) -> Interval:
    """The value of a deterministic fit as a point: known exactly, no spread to estimate."""
    if iv.n == 0:
        return iv
    return Interval(iv.mean, 0.0, iv.n, iv.dropped, 0.0, exact=True)


def detectable_difference(
    a: Interval, b: Interval, alpha: float = ALPHA, power: float = POWER
) -> float | None:
    """The smallest difference of means that a two-sided t test at level ``alpha`` would detect
    with probability ``power``, given the spread observed in ``a`` and ``b``.

    ``mdd = (t_{1-alpha/2, df} + t_{power, df}) · sqrt(s1²/n1 + s2²/n2)``, ``df = n1 + n2 − 2``,
    with ``s1``, ``s2`` the sample standard deviations: the standard two-sample power
    approximation (Cohen 1988, *Statistical Power Analysis for the Behavioral Sciences*, ch. 2,
    with the normal quantiles replaced by t quantiles for few seeds). ``alpha`` and ``power``
    must lie in (0, 1). None (unavailable) when either side has fewer than 2 values: one seed
    gives no spread. Against an :func:`exact` value the test is the one-sample one:
    ``(t_{1-alpha/2, n-1} + t_{power, n-1}) · s / sqrt(n)``; between two exact values any
    difference is real (0).
    """
    for name, value in (("alpha", alpha), ("power", power)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"{name} must be in (0, 1). Received: {name}={value}")
    if a.exact and b.exact:
        return 0.0
    if a.exact or b.exact:
        sample = b if a.exact else a
        if sample.sd is None or sample.n < 2:
            return None
        df = sample.n - 1
        t_alpha = float(_scipy_stats.t.ppf(1.0 - alpha / 2.0, df=df))
        t_power = float(_scipy_stats.t.ppf(power, df=df))
        return (t_alpha + t_power) * sample.sd / math.sqrt(sample.n)
    if a.sd is None or b.sd is None or a.n < 2 or b.n < 2:
        return None
    df = a.n + b.n - 2
    t_alpha = float(_scipy_stats.t.ppf(1.0 - alpha / 2.0, df=df))
    t_power = float(_scipy_stats.t.ppf(power, df=df))
    return (t_alpha + t_power) * math.sqrt(a.sd**2 / a.n + b.sd**2 / b.n)
