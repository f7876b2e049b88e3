"""NIST SP 800-22 Rev. 1a tests on raw bits, streamed in chunks (memory bounded).

Reference: A. Rukhin et al., *A Statistical Test Suite for Random and Pseudorandom Number
Generators for Cryptographic Applications*, NIST SP 800-22 Rev. 1a (2010), section 2
(tests) and section 3 (their mathematics). Implemented here from the text:

* 2.1 frequency (monobit)       * 2.2 frequency within a block   * 2.3 runs
* 2.4 longest run of ones       * 2.11 serial                    * 2.12 approximate entropy
* 2.13 cumulative sums (forward and reverse)

The whole stream is one sequence of n bits, read most significant bit first in each byte.
Every statistic is a running sum, so the stream is never held in memory: serial and
approximate entropy count overlapping patterns of the *circular* sequence (the standard
appends the first m-1 bits), which needs only the first and last few bits; a count of
circular m-bit patterns also gives every shorter pattern count by marginalizing, so one
table of ``L = max(serial m, apen m + 1)``-bit patterns serves both tests.
Parameters follow the standard's recommendations for the stream length (2.2.7, 2.4.2,
2.11.7, 2.12.7). The test names and the published worked examples of section 2 are in
the unit tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special, stats

from rng.cert.results import TestResult

Bits = npt.NDArray[np.uint8]
REF = "NIST SP 800-22 Rev. 1a"

# Table of 2.4.4: (block length M, class edges, class probabilities pi_i).
_LONGEST_RUN = {
    8: ((1, 2, 3, 4), (0.2148, 0.3672, 0.2305, 0.1875)),
    128: ((4, 5, 6, 7, 8, 9), (0.1174, 0.2430, 0.2493, 0.1752, 0.1027, 0.1124)),
    10_000: (
        (10, 11, 12, 13, 14, 15, 16),
        (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727),
    ),
}


@dataclass(frozen=True)
class BitParams:
    """Test parameters for a stream of ``n`` bits (defaults from the standard)."""

    n: int
    block_m: int
    longest_m: int
    serial_m: int
    apen_m: int

    @classmethod
    def for_length(
        cls, n: int, *, block_m: int | None = None, serial_m: int | None = None,
        apen_m: int | None = None, longest_m: int | None = None,
    ) -> BitParams:
        if n < 10:
            raise ValueError(f"SP 800-22 tests need at least 10 bits, got {n}")
        log2n = math.floor(math.log2(n))
        if block_m is None:  # 2.2.7: M >= 20, M > 0.01 n, fewer than 100 blocks
            block_m = max(20, n // 99 + 1)
        if longest_m is None:  # 2.4.2
            longest_m = 10_000 if n >= 750_000 else 128 if n >= 6272 else 8
        if serial_m is None:  # 2.11.7: m < floor(log2 n) - 2; STS default 16
            serial_m = max(2, min(16, log2n - 3))
        if apen_m is None:  # 2.12.7: m < floor(log2 n) - 5; STS default 10
            apen_m = max(1, min(10, log2n - 6))
        return cls(n, block_m, longest_m, serial_m, apen_m)


class BitBattery:
    """Feed bits (0/1 uint8 arrays) or bytes in order, then ask for :meth:`results`."""

    def __init__(self, params: BitParams, subject: str = "raw DRBG stream") -> None:
        if params.longest_m not in _LONGEST_RUN:
            raise ValueError(f"longest-run block length must be one of {sorted(_LONGEST_RUN)}")
        self.p = params
        self.subject = subject
        self.seen = 0
        self.ones = 0
        self._block_ones = 0  # ones in the current frequency block
        self._block_len = 0
        self._block_sumsq = 0.0  # sum over full blocks of (pi_i - 1/2)^2
        self._blocks = 0
        self._transitions = 0
        self._last_bit = -1
        self._lr_carry = np.zeros(0, dtype=np.uint8)
        edges = _LONGEST_RUN[params.longest_m][0]
        self._lr_counts = np.zeros(len(edges), dtype=np.int64)
        self._pat_len = max(params.serial_m, params.apen_m + 1)
        self._pat_counts = np.zeros(1 << self._pat_len, dtype=np.int64)
        self._head = np.zeros(0, dtype=np.uint8)
        self._tail = np.zeros(0, dtype=np.uint8)
        self._s = 0  # running +-1 sum
        self._s_max_abs = 0
        self._s_min = 0  # min and max of S_j for j = 0..n-1 (reverse cusum)
        self._s_max = 0

    # -- feeding ---------------------------------------------------------------------------

    def update_bytes(self, data: bytes | npt.NDArray[np.uint8]) -> None:
        self.update(np.unpackbits(np.frombuffer(data, dtype=np.uint8)))

    def update(self, bits: Bits) -> None:
        bits = np.asarray(bits, dtype=np.uint8)
        room = self.p.n - self.seen
        if bits.size > room:
            bits = bits[:room]
        if bits.size == 0:
            return
        self.seen += bits.size
        self.ones += int(np.count_nonzero(bits))
        self._update_blocks(bits)
        if self._last_bit >= 0:
            self._transitions += int(bits[0] != self._last_bit)
        self._transitions += int(np.count_nonzero(bits[1:] != bits[:-1]))
        self._last_bit = int(bits[-1])
        self._update_longest(bits)
        self._update_patterns(bits)
        self._update_cusum(bits)

    def _update_blocks(self, bits: Bits) -> None:
        m = self.p.block_m
        pos = 0
        if self._block_len:
            take = min(m - self._block_len, bits.size)
            self._block_ones += int(np.count_nonzero(bits[:take]))
            self._block_len += take
            pos = take
            if self._block_len == m:
                self._block_sumsq += (self._block_ones / m - 0.5) ** 2
                self._blocks += 1
                self._block_ones = self._block_len = 0
        full = (bits.size - pos) // m
        if full:
            ones = bits[pos : pos + full * m].reshape(full, m).sum(axis=1, dtype=np.int64)
            self._block_sumsq += float(np.sum((ones / m - 0.5) ** 2))
            self._blocks += full
            pos += full * m
        if pos < bits.size:
            self._block_ones = int(np.count_nonzero(bits[pos:]))
            self._block_len = bits.size - pos

    def _update_longest(self, bits: Bits) -> None:
        m = self.p.longest_m
        data = np.concatenate([self._lr_carry, bits]) if self._lr_carry.size else bits
        full = data.size // m
        if full:
            self._lr_counts += longest_run_classes(data[: full * m].reshape(full, m), m)
        self._lr_carry = data[full * m :].copy()

    def _update_patterns(self, bits: Bits) -> None:
        length = self._pat_len
        if self._head.size < length - 1:
            self._head = np.concatenate([self._head, bits[: length - 1 - self._head.size]])
        data = np.concatenate([self._tail, bits]) if self._tail.size else bits
        self._count_windows(data)
        self._tail = data[max(0, data.size - (length - 1)) :].copy()

    def _count_windows(self, data: Bits) -> None:
        self._pat_counts += pattern_counts(data, self._pat_len)

    def _update_cusum(self, bits: Bits) -> None:
        c = np.cumsum(bits.astype(np.int8) * 2 - 1, dtype=np.int64)
        s = self._s
        # S_j for j = 0..n-1 excludes the final sum: this chunk contributes S (its first
        # S_j) and S + c[:-1]; the last partial sum waits for the next chunk.
        self._s_min = min(self._s_min, s, s + int(c[:-1].min(initial=0)))
        self._s_max = max(self._s_max, s, s + int(c[:-1].max(initial=0)))
        self._s_max_abs = max(self._s_max_abs, abs(s + int(c.max())), abs(s + int(c.min())))
        self._s = s + int(c[-1])

    # -- results ---------------------------------------------------------------------------

    def _finish_patterns(self) -> npt.NDArray[np.int64]:
        wrap = np.concatenate([self._tail, self._head])
        return self._pat_counts + pattern_counts(wrap, self._pat_len)

    def results(self) -> list[TestResult]:
        if self.seen != self.p.n:
            raise ValueError(f"expected {self.p.n} bits, got {self.seen}")
        n = self.p.n
        counts = self._finish_patterns()

        def pattern_counts(m: int) -> npt.NDArray[np.int64]:
            if m <= 0:
                return np.zeros(1, dtype=np.int64)
            return counts.reshape(1 << m, -1).sum(axis=1)

        out = [
            self._monobit(),
            self._block_frequency(),
            self._runs(),
            self._longest_run(),
            *serial_results(n, self.p.serial_m, pattern_counts, self.subject),
            apen_result(n, self.p.apen_m, pattern_counts, self.subject),
            *self._cusums(),
        ]
        return out

    def _r(self, name: str, stat: float, p: float, df: str, section: str, detail: str = ""
           ) -> TestResult:
        return TestResult(self.subject, name, stat, p, df, self.p.n, detail, f"{REF} {section}")

    def _monobit(self) -> TestResult:
        n = self.p.n
        s_obs = abs(2 * self.ones - n) / math.sqrt(n)
        p = float(special.erfc(s_obs / math.sqrt(2)))
        return self._r("SP 800-22 frequency (monobit)", s_obs, p, "half-normal", "2.1",
                       f"ones {self.ones} of {n}")

    def _block_frequency(self) -> TestResult:
        m, blocks = self.p.block_m, self._blocks
        chi = 4.0 * m * self._block_sumsq
        p = float(special.gammaincc(blocks / 2, chi / 2)) if blocks else 1.0
        return self._r("SP 800-22 frequency within a block", chi, p, f"chi2({blocks})", "2.2",
                       f"M = {m}, {blocks} blocks")

    def _runs(self) -> TestResult:
        n = self.p.n
        pi = self.ones / n
        v = self._transitions + 1
        if abs(pi - 0.5) >= 2 / math.sqrt(n):
            return self._r("SP 800-22 runs", float(v), 0.0, "normal", "2.3",
                           "frequency pre-test failed: |pi - 1/2| >= 2/sqrt(n)")
        z = abs(v - 2 * n * pi * (1 - pi)) / (2 * math.sqrt(2 * n) * pi * (1 - pi))
        return self._r("SP 800-22 runs", float(v), float(special.erfc(z)), "normal", "2.3",
                       f"V_n(obs) = {v}")

    def _longest_run(self) -> TestResult:
        m = self.p.longest_m
        _, probs = _LONGEST_RUN[m]
        nu = self._lr_counts
        blocks = int(nu.sum())
        exp = blocks * np.asarray(probs)
        chi = float(np.sum((nu - exp) ** 2 / exp)) if blocks else 0.0
        k = len(probs) - 1
        p = float(special.gammaincc(k / 2, chi / 2)) if blocks else 1.0
        return self._r("SP 800-22 longest run of ones", chi, p, f"chi2({k})", "2.4",
                       f"M = {m}, {blocks} blocks, classes {nu.tolist()}")

    def _cusums(self) -> list[TestResult]:
        n = self.p.n
        fwd = self._s_max_abs
        rev = max(abs(self._s - self._s_min), abs(self._s - self._s_max))
        return [
            self._r("SP 800-22 cumulative sums (forward)", float(fwd), cusum_p(n, fwd),
                    "random walk", "2.13"),
            self._r("SP 800-22 cumulative sums (reverse)", float(rev), cusum_p(n, rev),
                    "random walk", "2.13"),
        ]


def longest_run_classes(blocks: Bits, m: int) -> npt.NDArray[np.int64]:
    """Class counts (2.4.4) of the longest run of ones in each row of ``blocks``."""
    ones = np.cumsum(blocks, axis=1, dtype=np.int32)
    # ones counted up to the last zero at or before each position: a run is the difference
    at_zero = np.maximum.accumulate(np.where(blocks == 0, ones, 0), axis=1)
    longest = (ones - at_zero).max(axis=1)
    edges = _LONGEST_RUN[m][0]
    cls = np.clip(longest, edges[0], edges[-1]) - edges[0]
    return np.bincount(cls, minlength=len(edges)).astype(np.int64)


def pattern_counts(bits: Bits, length: int) -> npt.NDArray[np.int64]:
    """Counts of the overlapping ``length``-bit patterns (MSB first) inside ``bits``.

    Works on packed bytes: the window at bit 8i + r is read from the 32-bit big-endian
    word at byte i, so eight vectorized passes over n/8 words do the work (length <= 25).
    """
    nwin = bits.size - length + 1
    counts = np.zeros(1 << length, dtype=np.int64)
    if nwin <= 0:
        return counts
    if length > 25:
        raise ValueError("pattern length above 25 bits")
    packed = np.concatenate([np.packbits(bits), np.zeros(4, dtype=np.uint8)]).astype(np.int64)
    words = packed[:-3] << 24 | packed[1:-2] << 16 | packed[2:-1] << 8 | packed[3:]
    mask = (1 << length) - 1
    for r in range(8):
        count_r = (nwin - r + 7) // 8  # window starts 8i + r below nwin
        if count_r <= 0:
            continue
        vals = (words[:count_r] >> (32 - length - r)) & mask
        counts += np.bincount(vals, minlength=1 << length)
    return counts


def _psi2(n: int, m: int, pattern_counts: object) -> float:
    if m <= 0:
        return 0.0
    nu = pattern_counts(m)  # type: ignore[operator]
    return float((1 << m) / n * np.sum(nu.astype(np.float64) ** 2) - n)


def serial_results(n: int, m: int, pattern_counts: object, subject: str) -> list[TestResult]:
    """2.11: the two serial statistics from circular pattern counts."""
    p0, p1, p2 = (_psi2(n, m - j, pattern_counts) for j in (0, 1, 2))
    d1 = p0 - p1
    d2 = p0 - 2 * p1 + p2
    pv1 = float(special.gammaincc(2 ** (m - 2), d1 / 2))
    pv2 = float(special.gammaincc(2 ** (m - 3), d2 / 2))
    ref = f"{REF} 2.11"
    return [
        TestResult(subject, "SP 800-22 serial (del psi^2)", d1, pv1, f"chi2({2 ** (m - 1)})",
                   n, f"m = {m}", ref),
        TestResult(subject, "SP 800-22 serial (del^2 psi^2)", d2, pv2, f"chi2({2 ** (m - 2)})",
                   n, f"m = {m}", ref),
    ]


def apen_result(n: int, m: int, pattern_counts: object, subject: str) -> TestResult:
    """2.12: approximate entropy from circular m- and (m+1)-bit pattern counts."""

    def phi(mm: int) -> float:
        nu = pattern_counts(mm).astype(np.float64)  # type: ignore[operator]
        c = nu[nu > 0] / n
        return float(np.sum(c * np.log(c)))

    apen = phi(m) - phi(m + 1)
    chi = 2.0 * n * (math.log(2) - apen)
    p = float(special.gammaincc(2 ** (m - 1), chi / 2))
    return TestResult(subject, "SP 800-22 approximate entropy", chi, p, f"chi2({2 ** m})", n,
                      f"m = {m}, ApEn = {apen:.6f}", f"{REF} 2.12")


def cusum_p(n: int, z: int) -> float:
    """2.13.4 p-value of the maximal excursion ``z`` of a random walk of ``n`` steps.

    The summation bounds use integer division truncated toward zero, as the standard's
    reference implementation does (its worked example, p = 0.4116588 for n = 10, depends
    on it); for real stream lengths the terms at the bounds are negligible either way.
    """
    if z <= 0:
        return 1.0

    def tdiv(a: int, b: int) -> int:
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q

    sq = math.sqrt(n)
    norm = stats.norm.cdf
    nz = tdiv(n, z)
    k1 = np.arange(tdiv(-nz + 1, 4), tdiv(nz - 1, 4) + 1)
    k2 = np.arange(tdiv(-nz - 3, 4), tdiv(nz - 1, 4) + 1)
    s1 = np.sum(norm((4 * k1 + 1) * z / sq) - norm((4 * k1 - 1) * z / sq))
    s2 = np.sum(norm((4 * k2 + 3) * z / sq) - norm((4 * k2 + 1) * z / sq))
    return float(min(1.0, max(0.0, 1.0 - s1 + s2)))


def bits_from_string(text: str) -> Bits:
    """'0110...' as a bit array (for the standard's worked examples)."""
    return np.frombuffer("".join(text.split()).encode("ascii"), dtype=np.uint8) - ord("0")


def run_bits(bits: Bits, **params: int) -> dict[str, TestResult]:
    """All tests on one in-memory bit array, keyed by test name (for examples and tests)."""
    arr = np.asarray(bits, dtype=np.uint8)
    bat = BitBattery(BitParams.for_length(arr.size, **params))
    bat.update(arr)
    return {r.name: r for r in bat.results()}
