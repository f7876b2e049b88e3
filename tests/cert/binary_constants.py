"""The first bits of e, pi, sqrt 2 and sqrt 3 in binary, computed exactly with integers.

NIST's sample files data.e, data.pi, data.sqrt2 and data.sqrt3 (sts 2.1.2) hold these
expansions as ASCII, the integer part first (e = 10.1011..., pi = 11.0010...); the tests
generate them instead of shipping 4.7 MB of text. e is the series sum 1/k!, pi
Chudnovsky's series, both summed by binary splitting (a few big products and one
division); the square roots are integer square roots.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import numpy.typing as npt

GUARD = 64  # extra bits: the truncated series and the division stay exact in the bits kept


def _bits(value: int, count: int) -> npt.NDArray[np.uint8]:
    """The first ``count`` binary digits of the integer ``value``, as a 0/1 array."""
    length = value.bit_length()
    top = value >> (length - count)
    raw = top.to_bytes((count + 7) // 8, "big")
    return np.unpackbits(np.frombuffer(raw, dtype=np.uint8))[-count:].copy()


def _e_series(a: int, b: int) -> tuple[int, int]:
    """sum over k = a..b-1 of 1 / (a (a+1) ... k), as P / Q."""
    if b - a == 1:
        return 1, a
    mid = (a + b) // 2
    p1, q1 = _e_series(a, mid)
    p2, q2 = _e_series(mid, b)
    return p1 * q2 + p2, q1 * q2


@cache
def e_bits(count: int) -> npt.NDArray[np.uint8]:
    prec = count + GUARD
    terms = 2
    while math.lgamma(terms + 1) / math.log(2) < prec + GUARD:
        terms += 256
    p, q = _e_series(1, terms)
    return _bits(((q + p) << prec) // q, count)  # e = 1 + sum_{k>=1} 1/k!


_C3_24 = 640320 ** 3 // 24


def _chudnovsky(a: int, b: int) -> tuple[int, int, int]:
    if b - a == 1:
        if a == 0:
            p = q = 1
        else:
            p = (6 * a - 5) * (2 * a - 1) * (6 * a - 1)
            q = a * a * a * _C3_24
        t = p * (13591409 + 545140134 * a)
        return p, q, -t if a & 1 else t
    mid = (a + b) // 2
    p1, q1, t1 = _chudnovsky(a, mid)
    p2, q2, t2 = _chudnovsky(mid, b)
    return p1 * p2, q1 * q2, t1 * q2 + p1 * t2


@cache
def pi_bits(count: int) -> npt.NDArray[np.uint8]:
    prec = count + GUARD
    terms = int(prec / 47.11) + 2  # each term adds about 47.11 bits
    _, q, t = _chudnovsky(0, terms)
    sqrt_10005 = math.isqrt(10005 << (2 * prec))
    return _bits((426880 * sqrt_10005 * q) // t, count)


@cache
def sqrt_bits(square: int, count: int) -> npt.NDArray[np.uint8]:
    return _bits(math.isqrt(square << (2 * (count + GUARD))), count)
