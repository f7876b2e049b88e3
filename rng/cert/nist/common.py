"""What every SP 800-22 test shares: the bit array, one p-value's record, the special
functions the reference uses (its ``cephes_igamc`` is the regularized upper incomplete
gamma function Q(a, x), scipy's ``gammaincc``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

Bits = npt.NDArray[np.uint8]
NAN = math.nan


@dataclass(frozen=True)
class Value:
    """One p-value of one test on one sequence, with the statistic it came from.

    ``applicable`` False: the standard says the test does not apply to this sequence
    (random excursions with fewer than 500 cycles); statistic and p-value are NaN."""

    statistic: float
    p_value: float
    applicable: bool = True

    @classmethod
    def not_applicable(cls) -> Value:
        return cls(NAN, NAN, False)


def igamc(a: float, x: float) -> float:
    """Q(a, x), the reference's ``cephes_igamc`` (1 for x <= 0, as cephes returns)."""
    if x <= 0:
        return 1.0
    return float(special.gammaincc(a, x))


def erfc(x: float) -> float:
    return float(special.erfc(x))


def as_bits(data: npt.ArrayLike) -> Bits:
    """A 0/1 array of bytes (what every test takes)."""
    return np.ascontiguousarray(data, dtype=np.uint8)
