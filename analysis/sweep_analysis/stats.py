"""Two-sample statistics for comparing raw samples, in NumPy only: the
Mann-Whitney U test (normal approximation with tie and continuity
corrections) and a bootstrap confidence interval of the ratio of medians.
"""

from __future__ import annotations

import math

import numpy as np


def rankdata(a: np.ndarray) -> tuple:
    """Average ranks (1-based) of a, and the sizes of its groups of ties."""
    a = np.asarray(a, dtype=float)
    order = np.argsort(a, kind="mergesort")
    s = a[order]
    first = np.r_[True, s[1:] != s[:-1]]
    group = np.cumsum(first) - 1
    bounds = np.r_[np.nonzero(first)[0], len(a)]
    avg = (bounds[:-1] + bounds[1:] - 1) / 2.0 + 1.0
    ranks = np.empty(len(a))
    ranks[order] = avg[group]
    return ranks, np.diff(bounds)


def mann_whitney(x, y) -> tuple:
    """Two-sided Mann-Whitney U test of x against y: (U of x, p-value).
    Normal approximation, fine from about 8 samples a side; p = 1 when
    every value is tied."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n1, n2 = len(x), len(y)
    if n1 == 0 or n2 == 0:
        return math.nan, math.nan
    ranks, ties = rankdata(np.concatenate([x, y]))
    u = ranks[:n1].sum() - n1 * (n1 + 1) / 2.0
    n = n1 + n2
    mu = n1 * n2 / 2.0
    tie = float((ties**3 - ties).sum())
    var = n1 * n2 / 12.0 * ((n + 1) - tie / (n * (n - 1)))
    if var <= 0:
        return u, 1.0
    d = u - mu
    z = (abs(d) - 0.5) / math.sqrt(var) if abs(d) >= 0.5 else 0.0
    return u, math.erfc(z / math.sqrt(2.0))


def median_ratio_ci(x, y, level=0.99, resamples=2000, seed=0) -> tuple:
    """Percentile bootstrap interval of median(y) / median(x): (lo, hi)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    rng = np.random.default_rng(seed)
    mx = np.median(x[rng.integers(0, len(x), (resamples, len(x)))], axis=1)
    my = np.median(y[rng.integers(0, len(y), (resamples, len(y)))], axis=1)
    r = my / mx
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(r, [tail, 100 - tail])
    return float(lo), float(hi)


def median_ci(x, level=0.95, resamples=300, seed=0) -> tuple:
    """Percentile bootstrap interval of median(x): (lo, hi); NaNs without samples."""
    x = np.asarray(x, float)
    if len(x) < 2:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    m = np.median(x[rng.integers(0, len(x), (resamples, len(x)))], axis=1)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(m, [tail, 100 - tail])
    return float(lo), float(hi)


def bootstrap_medians(groups, resamples, rng) -> np.ndarray:
    """`resamples` bootstrap medians of each group of values: shape
    (resamples, groups). Exact and O(resamples) per group: the median of n
    values redrawn with replacement is the k-th smallest of n draws
    floor(n U), that is x_(floor(n U_(k))) with U_(k) ~ Beta(k, n + 1 - k)
    (k = (n + 1) // 2); for even n, np.median's other middle value follows
    as U_(k+1) = U_(k) + (1 - U_(k)) Beta(1, n - k)."""
    xs = [np.sort(np.asarray(g, float)) for g in groups]
    n = np.array([len(x) for x in xs], dtype=np.int64)
    if (n < 1).any():
        raise ValueError("bootstrap_medians: an empty group")
    flat = np.concatenate(xs)
    offs = np.r_[0, np.cumsum(n)[:-1]]
    k = (n + 1) // 2
    size = (resamples, len(n))
    u = rng.beta(k, n + 1 - k, size=size)
    lo = flat[offs + np.minimum((n * u).astype(np.int64), n - 1)]
    u2 = u + (1 - u) * rng.beta(1, np.maximum(n - k, 1), size=size)
    hi = flat[offs + np.minimum((n * u2).astype(np.int64), n - 1)]
    return np.where(n % 2 == 0, (lo + hi) / 2, lo)
