"""The predictor estimates (90B 6.3.7 MultiMCW, 6.3.8 lag, 6.3.9 MultiMMC, 6.3.10 LZ78Y).

Each predictor guesses every sample from the ones before it (:mod:`.kernels`); the
estimate is the larger of the global success rate (bounded above at 99%) and the local
one implied by the longest run of correct guesses (solved from 6.3.7 step 9's equation),
never below 1/k.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rng.cert.sp80090b import compiled
from rng.cert.sp80090b.entropic import ZALPHA, Estimate
from rng.cert.sp80090b.search import bisect_decreasing


def _local_log_prob(p: float, r: int, n: int) -> float:
    """log of the probability that N predictions with success p have no run of r
    successes (6.3.7 step 9): log(1 - p x) - log((r + 1 - r x) q) - (N + 1) log x, with
    x the fixed point of x = 1 + q p^r x^(r+1) (iterated from x = 1 until it settles)."""
    q = 1.0 - p
    x, last = 1.0, 0.0
    pr = p**r
    for _ in range(66):
        if not x - last > 2.220446049250313e-16 * x:
            break
        last = x
        x = 1.0 + q * pr * x ** (r + 1.0)
    a, b = 1.0 - p * x, (r + 1.0 - r * x) * q
    if a <= 0.0 or b <= 0.0:
        return -math.inf  # beyond the fixed point's range: as p -> 1
    return math.log(a) - math.log(b) - (n + 1.0) * math.log(x)


def prediction_estimate(name: str, c: int, n: int, longest_run: int, k: int) -> Estimate:
    """min-entropy from C correct of N predictions and the longest run of correct ones."""
    p_global = c / n
    if c > 0:
        p_prime = min(1.0, p_global + ZALPHA * math.sqrt(p_global * (1.0 - p_global) / (n - 1.0)))
    else:
        p_prime = 1.0 - 0.01 ** (1.0 / n)
    r = longest_run + 1
    vals: dict[str, Any] = {"C": c, "r": r, "N": n, "P_global": p_global,
                            "P_global'": p_prime}
    floor = max(1.0 / k, p_prime)
    p = floor
    target = math.log(0.99)
    if floor < 1.0 and _local_log_prob(floor, r, n) > target:
        # the chance of no run as long as r is still above 1% at p = P_global': the run
        # asks for a higher p (else P_local could not change the result)
        p_local = bisect_decreasing(lambda x: _local_log_prob(x, r, n), target, floor, 1.0,
                                    ends=False)
        p_local = 1.0 if p_local is None else p_local
        vals["P_local"] = p_local
        p = max(p, p_local)
    return Estimate(name, -math.log2(p), vals)


def _kernel_input(s: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(s, dtype=np.int64)


def multi_mcw(s: np.ndarray, k: int) -> Estimate:
    if s.size <= compiled.MCW_WINDOWS[-1]:
        return Estimate("MultiMCW Prediction", None, {})
    if k <= 2:
        c, n, run = compiled.kernel("multi_mcw_binary")(_kernel_input(s))
    else:
        c, n, run = compiled.kernel("multi_mcw")(_kernel_input(s), k)
    return prediction_estimate("MultiMCW Prediction", int(c), int(n), int(run), k)


def lag(s: np.ndarray, k: int) -> Estimate:
    fn = compiled.kernel("lag_binary" if k <= 2 else "lag")
    c, n, run = fn(_kernel_input(s))
    return prediction_estimate("Lag Prediction", int(c), int(n), int(run), k)


def multi_mmc(s: np.ndarray, k: int) -> Estimate:
    if k <= 2:
        c, n, run = compiled.kernel("multi_mmc_binary")(_kernel_input(s))
    else:
        items = min(compiled.MMC_D * compiled.MMC_MAX_ENTRIES, compiled.MMC_D * s.size + 16)
        c, n, run = compiled.kernel("multi_mmc")(_kernel_input(s), k,
                                                 compiled.table_size(items))
    return prediction_estimate("MultiMMC Prediction", int(c), int(n), int(run), k)


def lz78y(s: np.ndarray, k: int) -> Estimate:
    if s.size < compiled.LZ_B + 2:
        return Estimate("LZ78Y Prediction", None, {})
    if k <= 2:
        c, n, run = compiled.kernel("lz78y_binary")(_kernel_input(s))
    else:
        c, n, run = compiled.kernel("lz78y")(
            _kernel_input(s), k, compiled.table_size(compiled.LZ_MAX_DICT + compiled.LZ_B))
    return prediction_estimate("LZ78Y Prediction", int(c), int(n), int(run), k)
