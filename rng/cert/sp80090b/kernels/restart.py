"""The restart sanity check's cutoff (90B 3.1.4.3), computed exactly, compiled.

The cutoff is the (1 - alpha) quantile of the largest symbol count among 1,000 samples
of the "worst case" source for an entropy H_I: floor(1/p) symbols of probability
p = 2^-H_I and one more with the rest. The reference estimates that quantile by
simulating five million rows (a minute of both cores, and a result that moves from run
to run); here the law of the largest count is computed: Pr(every count <= x) follows
from the multinomial's chain of conditional binomials, one symbol at a time over the
draws still to place (f_i(n) = sum_c Bin(c; n, p_i / P_i) f_{i+1}(n - c)).
"""

from __future__ import annotations

import math

import numpy as np

from rng.cert.sp80090b.kernels.jit import njit


@njit
def _log_binomial_pmf(lf, c, n, q):
    """log Bin(c; n, q), ``lf`` the table of log factorials."""
    if q >= 1.0:
        return 0.0 if c == n else -np.inf
    return lf[n] - lf[c] - lf[n - c] + c * math.log(q) + (n - c) * math.log1p(-q)


@njit
def all_at_most(x, probs, draws):
    """Pr(no symbol occurs more than ``x`` times in ``draws`` draws) for the symbol
    probabilities ``probs`` (summing to 1)."""
    m = probs.size
    lf = np.zeros(draws + 1)
    for n in range(1, draws + 1):
        lf[n] = lf[n - 1] + math.log(n)
    f = np.zeros(draws + 1)  # f[n]: the later symbols hold n draws, each <= x
    last = probs[m - 1]
    for n in range(draws + 1):
        f[n] = 1.0 if n <= x else 0.0  # the last symbol takes all that remain
    rest = last
    for i in range(m - 2, -1, -1):
        rest += probs[i]
        q = probs[i] / rest if rest > 0 else 1.0
        g = np.zeros(draws + 1)
        for n in range(draws + 1):
            total = 0.0
            for c in range(0, min(x, n) + 1):
                if f[n - c] > 0.0:
                    total += math.exp(_log_binomial_pmf(lf, c, n, q)) * f[n - c]
            g[n] = total
        f = g
    return f[draws]
