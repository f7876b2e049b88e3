"""The fifteen tests as one suite: their parameters, their preconditions, and one
sequence through all of them, giving one row of P-values in the reference's order.

Defaults are the reference's (sts 2.1.2 ``assess``): block frequency M = 128,
non-overlapping template m = 9, overlapping template m = 9, approximate entropy m = 10,
serial m = 16, linear complexity M = 500. A length a test cannot use is refused before
anything runs (:func:`check`), naming the test and the condition, from the text's input
size recommendations (section 2.x.7) and what the reference's own code requires.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from rng.cert.nist import complexity, entropy, excursions, frequency, rank_dft, templates
from rng.cert.nist.common import Bits, Value
from rng.errors import RngError

#: (key, the reference's name, section of SP 800-22), in the reference's order
TESTS: tuple[tuple[str, str, str], ...] = (
    ("frequency", "Frequency", "2.1"),
    ("block-frequency", "BlockFrequency", "2.2"),
    ("cumulative-sums", "CumulativeSums", "2.13"),
    ("runs", "Runs", "2.3"),
    ("longest-run", "LongestRun", "2.4"),
    ("rank", "Rank", "2.5"),
    ("dft", "FFT", "2.6"),
    ("non-overlapping-template", "NonOverlappingTemplate", "2.7"),
    ("overlapping-template", "OverlappingTemplate", "2.8"),
    ("universal", "Universal", "2.9"),
    ("approximate-entropy", "ApproximateEntropy", "2.12"),
    ("random-excursions", "RandomExcursions", "2.14"),
    ("random-excursions-variant", "RandomExcursionsVariant", "2.15"),
    ("serial", "Serial", "2.11"),
    ("linear-complexity", "LinearComplexity", "2.10"),
)
KEYS = tuple(t[0] for t in TESTS)
NAMES = {t[0]: t[1] for t in TESTS}
SECTIONS = {t[0]: t[2] for t in TESTS}
#: the longest sequence we hold in memory (a few hundred MB of work arrays)
MAX_LENGTH = 100_000_000


class LengthError(RngError, ValueError):
    """A sequence length (or parameter) a chosen test cannot use: the message says why."""


@dataclass(frozen=True)
class SuiteParams:
    n: int
    block_frequency_m: int = 128
    template_m: int = 9
    overlapping_m: int = 9
    apen_m: int = 10
    serial_m: int = 16
    linear_m: int = 500
    tests: tuple[str, ...] = KEYS

    def describe(self, key: str) -> dict[str, Any]:
        """The parameters of test ``key`` at this length (as the report prints them)."""
        n = self.n
        if key == "block-frequency":
            return {"M": self.block_frequency_m, "N": n // self.block_frequency_m}
        if key == "longest-run":
            m, values, _ = frequency.longest_run_plan(n)
            return {"M": m, "N": n // m, "classes": f"<={values[0]} .. >={values[-1]}"}
        if key == "rank":
            return {"M": 32, "Q": 32, "N": n // 1024}
        if key == "non-overlapping-template":
            return {"m": self.template_m, "N": 8, "M": n // 8}
        if key == "overlapping-template":
            return {"m": self.overlapping_m, "M": 1032, "N": n // 1032, "K": 5}
        if key == "universal":
            length = entropy.universal_l(n) or 0
            return {"L": length, "Q": 10 * 2 ** length, "K": n // max(length, 1) - 10 * 2 ** length}
        if key == "approximate-entropy":
            return {"m": self.apen_m}
        if key == "serial":
            return {"m": self.serial_m}
        if key == "linear-complexity":
            return {"M": self.linear_m, "N": n // self.linear_m, "K": 6}
        return {}


@dataclass(frozen=True)
class Column:
    """One P-value a sequence yields: a test, and which of its P-values."""

    key: str
    label: str = ""
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return NAMES[self.key]

    @property
    def title(self) -> str:
        return f"{self.name} ({self.label})" if self.label else self.name


def columns(p: SuiteParams) -> list[Column]:
    """Every P-value of one sequence, in the reference's order."""
    out: list[Column] = []
    for key in KEYS:
        if key not in p.tests:
            continue
        base = p.describe(key)
        if key == "cumulative-sums":
            out += [Column(key, "forward", {"mode": 0}), Column(key, "reverse", {"mode": 1})]
        elif key == "non-overlapping-template":
            m = p.template_m
            out += [Column(key, f"template {templates.template_text(w, m)}",
                           {**base, "template": templates.template_text(w, m)})
                    for w in templates.templates(m)]
        elif key == "random-excursions":
            out += [Column(key, f"x = {x:+d}", {"x": x}) for x in excursions.STATES]
        elif key == "random-excursions-variant":
            out += [Column(key, f"x = {x:+d}", {"x": x}) for x in excursions.VARIANT_STATES]
        elif key == "serial":
            out += [Column(key, "del psi^2", base), Column(key, "del^2 psi^2", base)]
        else:
            out.append(Column(key, "", base))
    return out


def _need(ok: bool, key: str, why: str) -> None:
    if not ok:
        raise LengthError(f"{NAMES[key]} (SP 800-22 {SECTIONS[key]}) {why}")


def check(p: SuiteParams) -> None:
    """Refuse a length or parameter a chosen test cannot use (:class:`LengthError`)."""
    n, t = p.n, p.tests
    if n > MAX_LENGTH:
        raise LengthError(f"sequences of at most {MAX_LENGTH:,} bits, got {n:,}")
    for key in ("frequency", "runs", "cumulative-sums"):
        if key in t:
            _need(n >= 100, key, f"needs n >= 100 bits, got {n:,}")
    if "block-frequency" in t:
        m = p.block_frequency_m
        _need(n >= 100, "block-frequency", f"needs n >= 100 bits, got {n:,}")
        _need(20 <= m <= n, "block-frequency", f"needs 20 <= M <= n, got M = {m:,}")
    if "longest-run" in t:
        _need(n >= 128, "longest-run", f"needs n >= 128 bits, got {n:,}")
    if "rank" in t:
        _need(n >= 38 * 1024, "rank", f"needs 38 matrices of 32 x 32 bits, n >= 38,912; got {n:,}")
    if "dft" in t:
        _need(n >= 1000, "dft", f"needs n >= 1,000 bits, got {n:,}")
    _check_templates(p)
    if "universal" in t:
        _need(entropy.universal_l(n) is not None, "universal",
              f"needs n >= 387,840 bits (L >= 6, Q = 10 x 2^L blocks first), got {n:,}")
    _check_patterns(p)
    if "linear-complexity" in t:
        m = p.linear_m
        _need(500 <= m <= 5000, "linear-complexity", f"needs 500 <= M <= 5000, got M = {m:,}")
        _need(n // m >= 200, "linear-complexity",
              f"needs N = n // M >= 200 blocks (n >= {200 * m:,} for M = {m:,}); got {n:,} bits")
    for key in ("random-excursions", "random-excursions-variant"):
        if key in t:
            _need(n >= 1_000_000, key, f"needs n >= 1,000,000 bits, got {n:,}")


def _check_templates(p: SuiteParams) -> None:
    n, t = p.n, p.tests
    if "non-overlapping-template" in t:
        m = p.template_m
        _need(2 <= m <= 16, "non-overlapping-template",
              f"takes template lengths m = 2..16, got {m}")
        _need(n // 8 - m + 1 > 0, "non-overlapping-template",
              f"needs blocks of n // 8 >= m bits; got n = {n:,}")
    if "overlapping-template" in t:
        m = p.overlapping_m
        _need(2 <= m <= 16, "overlapping-template", f"takes template lengths m = 2..16, got {m}")
        least = min(templates.overlapping_probabilities(m))
        blocks = n // 1032
        _need(blocks * least > 5, "overlapping-template",
              f"needs N min(pi_i) > 5 (2.8.7): N = n // 1032 >= {math.floor(5 / least) + 1:,} "
              f"blocks for m = {m}; got {blocks:,}")


def _check_patterns(p: SuiteParams) -> None:
    n, t = p.n, p.tests
    log2n = math.floor(math.log2(n)) if n > 0 else 0
    if "approximate-entropy" in t:
        m = p.apen_m
        _need(1 <= m <= 24 and m < log2n - 5, "approximate-entropy",
              f"needs 1 <= m < floor(log2 n) - 5 (2.12.7): m = {m} needs n >= {2 ** (m + 6):,}"
              f" bits; got {n:,}")
    if "serial" in t:
        m = p.serial_m
        _need(2 <= m <= 25 and m < log2n - 2, "serial",
              f"needs 2 <= m < floor(log2 n) - 2 (2.11.7): m = {m} needs n >= {2 ** (m + 3):,}"
              f" bits; got {n:,}")


def run_sequence(bits: Bits, p: SuiteParams) -> tuple[npt.NDArray[np.float64],
                                                      npt.NDArray[np.float64]]:
    """Every chosen test on one sequence of ``p.n`` bits: (P-values, statistics), one per
    :func:`columns` entry, NaN where a test does not apply."""
    if bits.size != p.n:
        raise ValueError(f"expected {p.n} bits, got {bits.size}")
    values: list[Value] = []
    t = p.tests
    walk = excursions.walk(bits) if any(k.startswith("random") for k in t) else None
    counts = None
    if "serial" in t or "approximate-entropy" in t:
        longest = max(p.serial_m if "serial" in t else 0,
                      p.apen_m + 1 if "approximate-entropy" in t else 0)
        counts = entropy.circular_counts(bits, longest)
    for key in KEYS:
        if key in t:
            values += _one(key, bits, p, walk, counts)
    return (np.array([v.p_value for v in values], dtype=np.float64),
            np.array([v.statistic for v in values], dtype=np.float64))


def _one(key: str, bits: Bits, p: SuiteParams, walk: Any, counts: Any) -> list[Value]:
    n = p.n
    calls: dict[str, Any] = {
        "frequency": lambda: [frequency.frequency(bits)],
        "block-frequency": lambda: [frequency.block_frequency(bits, p.block_frequency_m)],
        "cumulative-sums": lambda: list(frequency.cumulative_sums(bits)),
        "runs": lambda: [frequency.runs(bits)],
        "longest-run": lambda: [frequency.longest_run(bits)],
        "rank": lambda: [rank_dft.rank(bits)],
        "dft": lambda: [rank_dft.dft(bits)],
        "non-overlapping-template": lambda: templates.non_overlapping(bits, p.template_m),
        "overlapping-template": lambda: [templates.overlapping(bits, p.overlapping_m)],
        "universal": lambda: [entropy.universal(bits)],
        "approximate-entropy": lambda: [entropy.approximate_entropy(n, p.apen_m, counts)],
        "random-excursions": lambda: excursions.random_excursions(walk),
        "random-excursions-variant": lambda: excursions.random_excursions_variant(walk),
        "serial": lambda: list(entropy.serial(n, p.serial_m, counts)),
        "linear-complexity": lambda: [complexity.linear_complexity(bits, p.linear_m)],
    }
    result: list[Value] = calls[key]()
    return result
