"""The IID track's permutation-test statistics (90B 5.1.1-5.1.10), compiled.

One call computes the 18 statistics other than compression on one (shuffled) sequence,
skipping those already settled (``active``), without allocating more than the
conversions need: the permutation tests compute them on up to 10,000 shuffles of 10^6
samples. The definitions are the standard's, with the reference tool's conventions
where it leaves a choice: binary data go through Conversion I (sums of 8 bits) for the
directional runs, periodicity and covariance and Conversion II (bytes of 8 bits, most
significant first; a last partial block keeps its bits high) for the collisions; the
runs around the median use 0.5 for binary data; covariance on non-binary data uses the
raw (untranslated) samples.
"""

from __future__ import annotations

import numpy as np

from rng.cert.sp80090b.kernels.jit import njit

#: the lags of the periodicity and covariance tests (5.1.9, 5.1.10)
LAGS = (1, 2, 8, 16, 32)
#: the statistics, in the reference's order (its ``test_names``)
NAMES = ("excursion", "numDirectionalRuns", "lenDirectionalRuns", "numIncreasesDecreases",
         "numRunsMedian", "lenRunsMedian", "avgCollision", "maxCollision",
         "periodicity(1)", "periodicity(2)", "periodicity(8)", "periodicity(16)",
         "periodicity(32)", "covariance(1)", "covariance(2)", "covariance(8)",
         "covariance(16)", "covariance(32)", "compression")


@njit
def conversion1(s):
    """Sums of consecutive 8 bits (the last block may be shorter)."""
    n = s.size
    out = np.zeros((n + 7) // 8, dtype=np.uint8)
    for i in range(n):
        out[i // 8] += s[i]
    return out


@njit
def conversion2(s):
    """Bytes of consecutive 8 bits, the first most significant."""
    n = s.size
    out = np.zeros((n + 7) // 8, dtype=np.uint8)
    for i in range(n):
        out[i // 8] += s[i] << (7 - i % 8)
    return out


@njit
def excursion(raw, mean):
    """max_i |sum_{j<=i} x_j - (i+1) mean| (5.1.1)."""
    total = 0.0
    best = 0.0
    for i in range(raw.size):
        total += raw[i]
        d = abs(total - (i + 1) * mean)
        if d > best:
            best = d
    return best


@njit
def directional(x, out):
    """Number and longest length of directional runs, and the larger of the number of
    increases and decreases (5.1.2-5.1.4): a step is +1 when x[i] <= x[i+1]. Written
    without branches on the data (random data would mispredict every other one)."""
    m = x.size - 1
    if m <= 0:
        out[1], out[2], out[3] = 0.0, 1.0, 0.0
        return
    prev = x[0] <= x[1]
    runs, run, longest, ups = np.int64(1), np.int64(1), np.int64(1), np.int64(prev)
    for i in range(1, m):
        cur = x[i] <= x[i + 1]
        ups += cur
        same = np.int64(cur == prev)
        runs += 1 - same
        run = run * same + 1
        longest = run if run > longest else longest
        prev = cur
    out[1], out[2], out[3] = runs, longest, max(ups, m - ups)


@njit
def median_runs(x, median, out):
    """Number and longest length of the runs above/below the median (5.1.5, 5.1.6)."""
    prev = x[0] >= median
    runs, run, longest = np.int64(1), np.int64(1), np.int64(1)
    for i in range(1, x.size):
        cur = x[i] >= median
        same = np.int64(cur == prev)
        runs += 1 - same
        run = run * same + 1
        longest = run if run > longest else longest
        prev = cur
    out[4], out[5] = runs, longest


@njit
def collisions(x, k, out):
    """Average and longest number of samples until a repeat, restarting after each
    (5.1.7, 5.1.8)."""
    seen = np.zeros(k, dtype=np.bool_)
    n = x.size
    i = 0
    total, count, longest = 0, 0, 0
    while i < n:
        seen[:] = False
        j = 0
        while i + j < n:
            v = x[i + j]
            if seen[v]:
                total += j + 1
                count += 1
                longest = max(longest, j + 1)
                i += j
                break
            seen[v] = True
            j += 1
        else:
            break
        i += 1
    out[6] = total / count if count else np.nan
    out[7] = longest


@njit
def lagged(x, cov, active, out):
    """Periodicity (equal samples at lag p) on ``x`` and covariance (sum of products at
    lag p) on ``cov`` for p in 1, 2, 8, 16, 32 (5.1.9, 5.1.10)."""
    lags = np.array([1, 2, 8, 16, 32], dtype=np.int64)
    for t in range(5):
        p = lags[t]
        if active[8 + t]:
            same = 0
            for i in range(x.size - p):
                same += x[i] == x[i + p]
            out[8 + t] = same
        if active[13 + t]:
            prod = np.int64(0)
            for i in range(cov.size - p):
                prod += np.int64(cov[i]) * np.int64(cov[i + p])
            out[13 + t] = prod


@njit
def statistics(data, raw, binary, k, median, mean, active, out):
    """The 18 statistics (all but compression) of one sequence into ``out`` (those with
    ``active`` false are left as they were)."""
    if active[0]:
        out[0] = excursion(raw, mean)
    if active[1:4].any() or active[8:18].any():
        x = conversion1(data) if binary else data
        if active[1:4].any():
            directional(x, out)
        lagged(x, x if binary else raw, active, out)
    if active[4] or active[5]:
        median_runs(data, 0.5 if binary else median, out)
    if active[6] or active[7]:
        if binary:
            collisions(conversion2(data), 256, out)
        else:
            collisions(data, k, out)
