"""SP 800-22 2.14 random excursions and 2.15 random excursions variant.

The +-1 walk S_1..S_n is cut into J cycles at its zeros (a last cycle when the walk ends
away from zero). With fewer than max(0.005 sqrt(n), 500) cycles neither test applies
(2.14.7, 2.15.7): we report them as not applicable. The reference writes a P-value of 0
for them instead, and its second-level analysis then leaves out every random-excursions
P-value that prints as 0.000000 (so it also drops a real failure below 5e-7); we count
a sequence as tested exactly when its walk has enough cycles. The reference also stops
without any P-value when J exceeds max(1000, n/100), the size of an array of its own;
we have no such array and compute the tests (such a walk, with far too many returns to
zero, fails them).

The class probabilities pi_k(x) are the reference's table, to ten places.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from rng.cert.nist.common import Bits, Value, erfc, igamc

STATES = (-4, -3, -2, -1, 1, 2, 3, 4)
VARIANT_STATES = (-9, -8, -7, -6, -5, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9)
#: pi_k(|x|) for k = 0..5 visits (5: five or more), |x| = 1..4, as the reference has them
EXCURSION_PI = (
    (0.5000000000, 0.25000000000, 0.12500000000, 0.06250000000, 0.03125000000, 0.0312500000),
    (0.7500000000, 0.06250000000, 0.04687500000, 0.03515625000, 0.02636718750, 0.0791015625),
    (0.8333333333, 0.02777777778, 0.02314814815, 0.01929012346, 0.01607510288, 0.0803755143),
    (0.8750000000, 0.01562500000, 0.01367187500, 0.01196289063, 0.01046752930, 0.0732727051),
)


def walk(bits: Bits) -> npt.NDArray[np.int64]:
    return np.cumsum(bits.astype(np.int64) * 2 - 1)


def cycles(s: npt.NDArray[np.int64]) -> int:
    """J: the walk's returns to zero, plus the unfinished last cycle if any."""
    return int(np.count_nonzero(s == 0)) + int(s[-1] != 0)


def enough_cycles(n: int, j: int) -> bool:
    return j >= max(0.005 * math.sqrt(n), 500)


def random_excursions(s: npt.NDArray[np.int64]) -> list[Value]:
    """2.14: per state x, how many cycles visit it 0, 1, ..., >= 5 times, chi-square."""
    j = cycles(s)
    if not enough_cycles(s.size, j):
        return [Value.not_applicable() for _ in STATES]
    cycle = np.cumsum(s == 0)  # the cycle of each position (zeros themselves unused)
    near = (s != 0) & (np.abs(s) <= 4)
    state = np.where(s[near] < 0, s[near] + 4, s[near] + 3)  # -4..-1, 1..4 -> 0..7
    visits = np.bincount(state * j + cycle[near], minlength=8 * j).reshape(8, j)
    out = []
    for i, x in enumerate(STATES):
        nu = np.bincount(np.minimum(visits[i], 5), minlength=6)
        pi = np.asarray(EXCURSION_PI[abs(x) - 1])
        chi2 = float(np.sum((nu - j * pi) ** 2 / (j * pi)))
        out.append(Value(chi2, igamc(2.5, chi2 / 2.0)))
    return out


def random_excursions_variant(s: npt.NDArray[np.int64]) -> list[Value]:
    """2.15: the total visits xi(x) to each state x = +-1..+-9 against J."""
    j = cycles(s)
    if not enough_cycles(s.size, j):
        return [Value.not_applicable() for _ in VARIANT_STATES]
    inside = np.abs(s) <= 9
    visits = np.bincount(s[inside] + 9, minlength=19)
    out = []
    for x in VARIANT_STATES:
        xi = int(visits[x + 9])
        out.append(Value(float(xi), erfc(abs(xi - j) / math.sqrt(2.0 * j * (4.0 * abs(x) - 2)))))
    return out
