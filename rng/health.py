"""SP 800-90B section 4.4 continuous health tests on raw noise samples.

Both tests are tuned by the assessed min-entropy per sample ``H`` and the false-alarm
probability ``alpha`` (the standard recommends 2^-20 ... 2^-40; we default to 2^-30, so
that a healthy source practically never tilts a table while a stuck or strongly biased
one is caught within one window):

* **Repetition count test** (4.4.1): a run of ``C = 1 + ceil(-log2(alpha) / H)``
  identical samples is a failure.
* **Adaptive proportion test** (4.4.2): in each window of ``W`` samples (1024 for a
  binary source, 512 otherwise) the first sample's value may occur at most ``C - 1``
  times, with ``C = 1 + CRITBINOM(W, 2^-H, 1 - alpha)``, the binomial quantile.

The cutoffs are computed here, not copied from the standard's tables; the tests check
them against the values the standard tabulates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rng.errors import RngError

DEFAULT_ALPHA_LOG2 = 30  # alpha = 2^-30


def rct_cutoff(h: float, alpha_log2: float = DEFAULT_ALPHA_LOG2) -> int:
    """Repetition count cutoff C = 1 + ceil(-log2(alpha) / H)."""
    if not 0 < h <= 64:
        raise ValueError(f"min-entropy per sample must be in (0, 64], got {h}")
    return 1 + math.ceil(alpha_log2 / h)


def critbinom(n: int, p: float, alpha_log2: float) -> int:
    """Smallest k with P(X <= k) >= 1 - alpha for X ~ Binomial(n, p), alpha = 2^-alpha_log2.

    Computed from the upper tail (summed from k = n down, in log space), so a tiny alpha
    keeps full precision where ``1 - alpha`` would round.
    """
    alpha = 2.0**-alpha_log2
    log_p, log_q = math.log(p), math.log1p(-p)
    lg_n1 = math.lgamma(n + 1)

    def pmf(j: int) -> float:
        return math.exp(
            lg_n1 - math.lgamma(j + 1) - math.lgamma(n - j + 1) + j * log_p + (n - j) * log_q
        )

    tail = 0.0  # P(X > k) for the current k
    k = n
    while k > 0:
        nxt = tail + pmf(k)  # P(X > k - 1)
        if nxt > alpha:
            break
        tail = nxt
        k -= 1
    return k


def apt_window(binary: bool) -> int:
    return 1024 if binary else 512


def apt_cutoff(h: float, binary: bool = False, alpha_log2: float = DEFAULT_ALPHA_LOG2) -> int:
    """Adaptive proportion cutoff C = 1 + CRITBINOM(W, 2^-H, 1 - alpha)."""
    if not 0 < h <= (1 if binary else 64):
        raise ValueError(f"min-entropy per sample {h} out of range for this source")
    return 1 + critbinom(apt_window(binary), 2.0**-h, alpha_log2)


class HealthFailure(RngError):
    """A continuous health test fired; ``test`` names which."""

    def __init__(self, test: str, detail: str) -> None:
        self.test = test
        super().__init__(f"{test} failed: {detail}")


@dataclass
class HealthTests:
    """The repetition count and adaptive proportion tests over one stream of samples."""

    h: float
    binary: bool = False
    alpha_log2: float = DEFAULT_ALPHA_LOG2

    def __post_init__(self) -> None:
        self.rct_c = rct_cutoff(self.h, self.alpha_log2)
        self.apt_w = apt_window(self.binary)
        self.apt_c = apt_cutoff(self.h, self.binary, self.alpha_log2)
        self.samples = 0
        self._last: int | None = None
        self._run = 0
        self._apt_ref = 0
        self._apt_count = 0
        self._apt_seen = self.apt_w  # forces a new window at the first sample

    def check(self, samples: bytes | bytearray | list[int]) -> None:
        """Test each sample in order; raise :class:`HealthFailure` at the first failure."""
        last, run = self._last, self._run
        ref, count, seen = self._apt_ref, self._apt_count, self._apt_seen
        rct_c, apt_w, apt_c = self.rct_c, self.apt_w, self.apt_c
        try:
            for s in samples:
                if s == last:
                    run += 1
                    if run >= rct_c:
                        raise HealthFailure(
                            "repetition count test", f"{run} identical samples (cutoff {rct_c})"
                        )
                else:
                    last, run = s, 1
                if seen >= apt_w:
                    ref, count, seen = s, 1, 1
                else:
                    seen += 1
                    if s == ref:
                        count += 1
                        if count >= apt_c:
                            raise HealthFailure(
                                "adaptive proportion test",
                                f"one value {count} times in a window of {apt_w} "
                                f"(cutoff {apt_c})",
                            )
        finally:
            self.samples += len(samples)
            self._last, self._run = last, run
            self._apt_ref, self._apt_count, self._apt_seen = ref, count, seen
