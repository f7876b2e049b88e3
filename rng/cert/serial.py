"""Independence in time: serial correlation at lags 1-10, and runs up and down.

* **Serial correlation** (Knuth, TAOCP vol. 2 §3.3.2 K; Anderson 1942 for the null law):
  for lag L the sample autocorrelation r_L of the value indexes x_0..x_{N-1}. For
  independent draws sqrt(N) * r_L tends to a standard normal, independently across lags
  (Bartlett 1946), so each lag is a two-sided z-test. Sums are kept in exact int64
  arithmetic, so chunking never changes the result. § 810a.5(c)(13).
* **Runs up and down** (Wallis & Moore 1941, JASA 36:401-409; Levene & Wolfowitz 1944,
  Ann. Math. Statist. 15:58-69; Knuth §3.3.2 G and exercise 14): the number R of
  maximal monotone runs in n continuous i.i.d. values has mean (2n - 1)/3 and variance
  (16n - 29)/90 and is asymptotically normal. Outcomes are discrete and tie often, so
  they are first mapped to exact uniforms by the *randomized probability integral
  transform* u = F(x - 1) + V * P(x), V uniform from an auxiliary fixed-seed PCG64
  stream (Brockwell 2007, Stat. Prob. Letters 77:1473): if the outcomes are i.i.d. with
  the configured weights, the u are exactly i.i.d. uniform on [0, 1). § 810a.5(c)(11).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from rng.cert.results import TestResult
from rng.cert.stats import normal_two_sided

MAX_LAG = 10
PIT_SEED = 0x5EED_CE27  # auxiliary stream for tie-breaking: fixed so analyses reproduce


class SerialCorrelation:
    """Autocorrelation of the index sequence at lags 1..MAX_LAG, streamed exactly."""

    def __init__(self, subject: str, max_lag: int = MAX_LAG) -> None:
        self.subject = subject
        self.max_lag = max_lag
        self.n = 0
        self.sum = 0
        self.sumsq = 0
        self.lagged = [0] * (max_lag + 1)  # sum_i x_i x_{i+L}
        self.head = np.zeros(0, dtype=np.int64)  # first max_lag values
        self.tail = np.zeros(0, dtype=np.int64)  # last max_lag values

    def update(self, x: npt.NDArray[np.integer]) -> None:
        v = x.astype(np.int64)
        if self.head.size < self.max_lag:
            self.head = np.concatenate([self.head, v[: self.max_lag - self.head.size]])
        ext = np.concatenate([self.tail, v])
        start = self.tail.size  # products whose second factor is new
        for lag in range(1, self.max_lag + 1):
            lo = max(start - lag, 0)
            if ext.size - lag > lo:
                self.lagged[lag] += int(np.dot(ext[lo : ext.size - lag], ext[lo + lag :]))
        self.n += v.size
        self.sum += int(v.sum())
        self.sumsq += int(np.dot(v, v))
        self.tail = ext[-self.max_lag :].copy()

    def merge(self, later: SerialCorrelation) -> None:
        """Continue with the sums of the block that follows (products across the seam)."""
        ext = np.concatenate([self.tail, later.head])
        seam = self.tail.size
        for lag in range(1, self.max_lag + 1):
            a = np.arange(max(seam - lag, 0), seam)
            a = a[a + lag < ext.size]
            cross = int(np.dot(ext[a], ext[a + lag])) if a.size else 0
            self.lagged[lag] += later.lagged[lag] + cross
        self.head = np.concatenate([self.head, later.head])[: self.max_lag]
        self.tail = np.concatenate([self.tail, later.tail])[-self.max_lag :].copy()
        self.n += later.n
        self.sum += later.sum
        self.sumsq += later.sumsq

    def correlations(self) -> list[float]:
        n = self.n
        mean = self.sum / n
        denom = self.sumsq - n * mean * mean
        out = []
        for lag in range(1, self.max_lag + 1):
            if n <= lag or denom <= 0:
                out.append(0.0)
                continue
            first = self.sum - int(self.tail[-lag:].sum())  # x_0 .. x_{n-lag-1}
            second = self.sum - int(self.head[:lag].sum())  # x_lag .. x_{n-1}
            num = self.lagged[lag] - mean * (first + second) + (n - lag) * mean * mean
            out.append(num / denom)
        return out

    def results(self) -> list[TestResult]:
        out = []
        ok = self.n > 2 * self.max_lag and self.sumsq * self.n != self.sum * self.sum
        for lag, r in enumerate(self.correlations(), start=1):
            z = r * math.sqrt(self.n)
            out.append(TestResult(
                self.subject, f"serial correlation, lag {lag}", r,
                normal_two_sided(z) if ok else 1.0, "sqrt(N) r ~ N(0,1)", self.n,
                f"z = {z:+.3f}", "Knuth, TAOCP vol. 2 §3.3.2 K; Bartlett 1946",
                applicable=ok))
        return out


class PitStream:
    """Randomized probability integral transform of index sequences to exact uniforms."""

    def __init__(self, probabilities: npt.ArrayLike, seed: int = PIT_SEED,
                 offset: int = 0) -> None:
        p = np.asarray(probabilities, dtype=np.float64)
        self.p = p / p.sum()
        self.cdf_before = np.concatenate([[0.0], np.cumsum(self.p)[:-1]])
        # one 64-bit draw per uniform, so the block starting at ``offset`` of a run gets
        # exactly the jitter a single pass over the run would give it
        bits = np.random.PCG64(seed)
        if offset:
            bits.advance(offset)
        self.rng = np.random.Generator(bits)

    def transform(self, x: npt.NDArray[np.integer]) -> npt.NDArray[np.float64]:
        v = self.rng.random(x.size)
        return self.cdf_before[x] + v * self.p[x]


class RunsUpDown:
    """Number of runs up and down of a uniform sequence (ties have probability ~0)."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        self.n = 0
        self.runs = 0
        self._last_u: float | None = None
        self._last_dir = 0
        self._first_u: float | None = None
        self._first_dir = 0  # first nonzero direction, for merging

    def update(self, u: npt.NDArray[np.float64]) -> None:
        if u.size == 0:
            return
        if self._first_u is None:
            self._first_u = float(u[0])
        ext = u if self._last_u is None else np.concatenate([[self._last_u], u])
        d = np.sign(np.diff(ext)).astype(np.int8)
        d = d[d != 0]
        if d.size and not self._first_dir:
            self._first_dir = int(d[0])
        if d.size:
            changes = int(np.count_nonzero(d[1:] != d[:-1]))
            if self._last_dir == 0:
                self.runs += 1 + changes
            else:
                self.runs += changes + int(d[0] != self._last_dir)
            self._last_dir = int(d[-1])
        self.n += u.size
        self._last_u = float(u[-1])

    def merge(self, later: RunsUpDown) -> None:
        """Continue with the runs of the block that follows (the step across the seam)."""
        if later.n == 0:
            return
        if self.n == 0 or self._last_u is None or later._first_u is None:
            self.__dict__.update(later.__dict__, subject=self.subject)
            return
        step = int(np.sign(later._first_u - self._last_u))
        last = self._last_dir
        if step:
            if last != step:
                self.runs += 1
            if not self._first_dir:
                self._first_dir = step
            last = step
        if later._first_dir:
            self.runs += later.runs - (1 if last == later._first_dir else 0)
            if not self._first_dir:
                self._first_dir = later._first_dir
            last = later._last_dir
        self._last_dir = last
        self.n += later.n
        self._last_u = later._last_u

    def results(self) -> list[TestResult]:
        n = self.n
        ok = n >= 20
        mean = (2 * n - 1) / 3
        var = (16 * n - 29) / 90
        z = (self.runs - mean) / math.sqrt(var) if ok else 0.0
        return [TestResult(
            self.subject, "runs up and down", float(self.runs),
            normal_two_sided(z) if ok else 1.0, "normal", n,
            f"expected {mean:.1f}, z = {z:+.3f}; ties broken by the randomized PIT",
            "Wallis & Moore 1941; Levene & Wolfowitz 1944; Knuth §3.3.2 G",
            applicable=ok)]
