"""The most common value, collision, Markov and compression estimates (90B 6.3.1-6.3.4).

Each returns an :class:`Estimate`: the min-entropy per sample and the intermediate
values the reference tool prints with ``-vv`` (the same names), so that a lab can follow
the figures step by step. The collision, Markov and compression estimates apply to
binary data only (the standard runs them on the bitstring).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from rng.cert.sp80090b.search import bisect_decreasing

#: the standard's 99% upper bound: z_(1 - 0.005)
ZALPHA = 2.5758293035489004


@dataclass
class Estimate:
    """One estimator's result: min-entropy per sample and what led to it."""

    name: str
    h: float | None  # None: the estimator does not apply (too little data)
    values: dict[str, Any] = field(default_factory=dict)


def upper_bound(p: float, n: int) -> float:
    """p_u = min(1, p + z sqrt(p (1 - p) / (n - 1))): the 99% upper bound (6.3.1 step 3)."""
    return min(1.0, p + ZALPHA * math.sqrt(p * (1.0 - p) / (n - 1.0)))


def most_common_value(s: np.ndarray, k: int) -> Estimate:
    """6.3.1: the mode's proportion, bounded above at 99%."""
    counts = np.bincount(s, minlength=k)
    mode = int(counts.max())
    p_hat = mode / s.size
    p_u = upper_bound(p_hat, s.size)
    return Estimate("Most Common Value", -math.log2(p_u),
                    {"Mode count": mode, "p-hat": p_hat, "p_u": p_u})


def _collision_times(s: np.ndarray) -> tuple[int, int]:
    """The collision walk on a bitstring: counts of collisions after 2 and after 3 samples.

    From the start, a pair of equal bits is a collision at 2; otherwise the third bit
    equals one of the two and the collision is at 3. The walk restarts after each.
    """
    from rng.cert.sp80090b.compiled import kernel

    two, three = kernel("collision_walk")(np.ascontiguousarray(s, dtype=np.uint8))
    return int(two), int(three)


def _collision_mean(p: float) -> float:
    """The expected collision time of a binary source with max probability p (6.3.2 step 7):
    p q^-2 (1 + (1/p - 1/q)/2) F(q) - p q^-1 (1/p - 1/q)/2, F(q) = q (2 q^2 + 2 q + 1)
    (F(1/z) = Gamma(3, z) z^-3 e^z in closed form)."""
    q = 1.0 - p
    f_q = q * (2.0 * q * q + 2.0 * q + 1.0)
    half = 0.5 * (1.0 / p - 1.0 / q)
    return p / (q * q) * (1.0 + half) * f_q - p / q * half


def collision(s: np.ndarray) -> Estimate:
    """6.3.2 (binary): the mean time to the first repeated value, bounded below at 99%."""
    two, three = _collision_times(s)
    v = two + three
    total = 2 * two + 3 * three
    mean = total / v
    var = (two * (2 - mean) ** 2 + three * (3 - mean) ** 2) / (v - 1)
    sigma = math.sqrt(var)
    mean_lo = mean - ZALPHA * sigma / math.sqrt(v)
    vals: dict[str, Any] = {"v": v, "Sum t_i": total, "X-bar": mean, "sigma-hat": sigma,
                            "X-bar'": mean_lo}
    p = bisect_decreasing(_collision_mean, mean_lo, 0.5, 1.0 - 2.0**-40)
    if p is None or p <= 0.5:
        vals["p"] = 0.5
        return Estimate("Collision", 1.0, vals)
    vals["p"] = p
    return Estimate("Collision", -math.log2(p), vals)


def markov(s: np.ndarray) -> Estimate:
    """6.3.3 (binary): the most likely 128-bit sequence under a first-order Markov model."""
    n = s.size
    ones = int(np.count_nonzero(s))
    p1 = ones / n
    p0 = 1.0 - p1
    a, b = s[:-1], s[1:]
    n01 = int(np.count_nonzero((a == 0) & (b == 1)))
    n11 = int(np.count_nonzero((a == 1) & (b == 1)))
    from0 = (n - 1) - int(np.count_nonzero(a))
    from1 = int(np.count_nonzero(a))
    p01 = n01 / from0 if from0 else 0.0
    p00 = 1.0 - p01 if from0 else 0.0
    p11 = n11 / from1 if from1 else 0.0
    p10 = 1.0 - p11 if from1 else 0.0
    candidates = (
        p0 * p00**127,
        p0 * p01**64 * p10**63,
        p0 * p01 * p11**126,
        p1 * p10 * p00**126,
        p1 * p10**64 * p01**63,
        p1 * p11**127,
    )
    p_max = max(candidates)
    h = min(-math.log2(p_max) / 128.0, 1.0) if p_max > 0 else 1.0
    return Estimate("Markov", h, {"P_0": p0, "P_1": p1, "P_{0,0}": p00, "P_{0,1}": p01,
                                  "P_{1,0}": p10, "P_{1,1}": p11, "p-hat_max": p_max})


COMPRESSION_B = 6
COMPRESSION_D = 1000
COMPRESSION_C = 0.5907


def compression(s: np.ndarray) -> Estimate:
    """6.3.4 (binary): Maurer's universal statistic on 6-bit blocks, bounded below at 99%,
    solved for the max probability of a block."""
    b, d = COMPRESSION_B, COMPRESSION_D
    nb = s.size // b
    if nb <= d:
        return Estimate("Compression", None, {})
    # each block of 6 bits as a number, first bit highest (packbits fills 8 from the top)
    blocks = np.packbits(s[: nb * b].reshape(nb, b).astype(np.uint8), axis=1)[:, 0] >> 2
    order = np.argsort(blocks, kind="stable").astype(np.int64)
    sorted_blocks = blocks[order]  # uint8: a stable sort of one byte is one radix pass
    prev = np.full(nb, -1, dtype=np.int64)
    same = sorted_blocks[1:] == sorted_blocks[:-1]
    prev[order[1:][same]] = order[:-1][same]
    idx = np.arange(nb, dtype=np.int64)
    dist = np.where(prev >= 0, idx - prev, idx + 1)[d:]
    logs = np.log2(dist.astype(np.float64))
    v = nb - d
    mean = float(logs.sum()) / v
    sigma = COMPRESSION_C * math.sqrt(float(np.dot(logs, logs)) / (v - 1.0) - mean * mean)
    mean_lo = mean - ZALPHA * sigma / math.sqrt(v)
    vals: dict[str, Any] = {"X-bar": mean, "sigma-hat": sigma, "X-bar'": mean_lo}
    from rng.cert.sp80090b.compiled import kernel

    compression_g = kernel("compression_g")

    k = 1 << b

    def expected(p: float) -> float:
        q = (1.0 - p) / (k - 1)
        return (compression_g(p, nb, d) + (k - 1) * compression_g(q, nb, d)) / v

    p = bisect_decreasing(expected, mean_lo, 1.0 / k, 1.0)
    if p is None or p <= 1.0 / k:
        vals["p"] = 1.0 / k
        return Estimate("Compression", 1.0, vals)
    vals["p"] = p
    return Estimate("Compression", -math.log2(p) / b, vals)
