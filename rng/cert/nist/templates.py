"""SP 800-22 2.7 non-overlapping and 2.8 overlapping template matching.

**Non-overlapping.** The templates of length m are the aperiodic words: those no proper
prefix of which is also a suffix (so two occurrences can never overlap). For m = 9 there
are 148, the reference's file ``template9``; we generate them (ascending, the file's
order) rather than ship it. Because a template cannot overlap itself, the reference's scan
(advance m bits after a match, one bit otherwise) counts exactly every occurrence, so one
table of m-bit window values per block gives all 148 counts at once. As in the
reference, at most 148 templates are used: for longer m, every SKIP-th of them,
SKIP = (number of templates) // 148. The sequence is cut into N = 8 blocks of M = n // 8.

**Overlapping.** The all-ones template of length m in blocks of M = 1032 bits, counts of
0..4 and >= 5 matches per block. The reference computes the class probabilities with its
function ``Pr`` from eta = (M - m + 1) / 2^(m+1): for m = 9 that gives 0.367879,
0.183940, 0.137955, 0.099634, 0.069935, 0.140657, while the text (2.8.4, 3.8) has the
more accurate 0.364091, 0.185659, 0.139381, 0.100571, 0.070432, 0.139865 (the reference
even declares those, then overwrites them). Its P-values come from the formula, so we
evaluate the same formula.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import numpy.typing as npt

from rng.cert.nist.common import Bits, Value, igamc

NON_OVERLAPPING_BLOCKS = 8
MAX_TEMPLATES = 148
OVERLAPPING_M = 1032
OVERLAPPING_K = 5


def window_values(bits: Bits, m: int) -> npt.NDArray[np.int64]:
    """The value of the m-bit window starting at each position 0..n-m (first bit high)."""
    count = bits.size - m + 1
    out = np.zeros(max(count, 0), dtype=np.int64)
    for k in range(m):
        out <<= 1
        out |= bits[k:k + count]
    return out


def _aperiodic(word: int, m: int) -> bool:
    """No border: for no b < m are the first b bits the same as the last b."""
    return all(word >> (m - b) != word & ((1 << b) - 1) for b in range(1, m))


@cache
def templates(m: int) -> tuple[int, ...]:
    """The templates the reference tests for length m (aperiodic words, ascending)."""
    words = [w for w in range(1 << m) if _aperiodic(w, m)]
    skip = max(1, len(words) // MAX_TEMPLATES)
    return tuple(words[::skip][:MAX_TEMPLATES])


def template_text(word: int, m: int) -> str:
    return format(word, f"0{m}b")


def non_overlapping(bits: Bits, m: int) -> list[Value]:
    """2.7: one chi-square over the 8 blocks' match counts per template."""
    blocks = NON_OVERLAPPING_BLOCKS
    size = bits.size // blocks
    lam = (size - m + 1) / 2.0 ** m
    var = size * (1.0 / 2.0 ** m - (2.0 * m - 1.0) / 2.0 ** (2.0 * m))
    chosen = np.asarray(templates(m))
    counts = np.empty((blocks, chosen.size), dtype=np.int64)
    for i in range(blocks):
        values = window_values(bits[i * size:(i + 1) * size], m)
        counts[i] = np.bincount(values, minlength=1 << m)[chosen]
    chi2 = np.sum(((counts - lam) / math.sqrt(var)) ** 2, axis=0)
    return [Value(float(c), igamc(blocks / 2.0, float(c) / 2.0)) for c in chi2]


def overlapping_probabilities(m: int) -> list[float]:
    """The reference's class probabilities pi_0..pi_5 for the all-ones template."""
    lam = (OVERLAPPING_M - m + 1) / 2.0 ** m
    eta = lam / 2.0
    lg = math.lgamma

    def pr(u: int) -> float:
        if u == 0:
            return math.exp(-eta)
        return sum(math.exp(-eta - u * math.log(2) + v * math.log(eta) - lg(v + 1) + lg(u)
                            - lg(v) - lg(u - v + 1)) for v in range(1, u + 1))

    pis = [pr(u) for u in range(OVERLAPPING_K)]
    return [*pis, 1.0 - sum(pis)]


def overlapping(bits: Bits, m: int) -> Value:
    """2.8: matches of m ones (overlapping) in each block of 1032 bits, chi-square."""
    size = OVERLAPPING_M
    blocks = bits.size // size
    rows = bits[: blocks * size].reshape(blocks, size)
    ones = np.zeros((blocks, size + 1), dtype=np.int32)
    np.cumsum(rows, axis=1, out=ones[:, 1:])
    matches = np.count_nonzero(ones[:, m:] - ones[:, : size + 1 - m] == m, axis=1)
    nu = np.bincount(np.minimum(matches, OVERLAPPING_K), minlength=OVERLAPPING_K + 1)
    expected = blocks * np.asarray(overlapping_probabilities(m))
    chi2 = float(np.sum((nu - expected) ** 2 / expected))
    return Value(chi2, igamc(OVERLAPPING_K / 2.0, chi2 / 2.0))
