"""The SP 800-22 suite (``etg cert bits``' code) rejects bad bit sources and passes the
project's DRBGs: fixed seeds, so every verdict here is deterministic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rng.cert.nist.bits_run import BitsOptions, BitsRun, run_bits
from rng.cert.nist.suite import SuiteParams
from rng.ctr_drbg import CtrDrbg
from rng.entropy import SeededSource
from rng.hmac_drbg import HmacDrbg

MILLION = 1_000_000


def run(tmp_path: Path, bits: np.ndarray, length: int, streams: int = 1) -> BitsRun:
    path = tmp_path / "bits.bin"
    np.packbits(bits).tofile(path)
    return run_bits(BitsOptions(str(path), "binary", SuiteParams(length), streams,
                                progress=False))


def rejected(r: BitsRun) -> set[str]:
    return {j.column.name for j in r.verdict.judged if j.rejected}


def lcg_words(a: int, c: int, m: int, seed: int, count: int) -> np.ndarray:
    """x_{k+1} = (a x_k + c) mod m, 4096 at a time (jumps a^i, c (a^i - 1)/(a - 1))."""
    step = 4096
    mult, add = [], []
    am, cm = 1, 0
    for _ in range(step):
        am, cm = am * a % m, (cm * a + c) % m
        mult.append(am)
        add.append(cm)
    mult_a, add_a = np.array(mult, dtype=np.uint64), np.array(add, dtype=np.uint64)
    out = np.empty(-(-count // step) * step, dtype=np.uint64)
    x = seed
    for k in range(0, count, step):
        out[k:k + step] = (mult_a * np.uint64(x) + add_a) % np.uint64(m)
        x = int(out[k + step - 1])
    return out[:count]


def word_bits(words: np.ndarray, width: int, low: int = 0) -> np.ndarray:
    """Bits low..low+width-1 of each word, the highest first, words in order."""
    shifts = np.arange(low + width - 1, low - 1, -1, dtype=np.uint64)
    return ((words[:, None] >> shifts) & np.uint64(1)).astype(np.uint8).ravel()


def test_a_biased_source_fails_on_its_frequency(tmp_path: Path) -> None:
    bits = (np.random.default_rng(3).random(10 * MILLION) < 0.502).astype(np.uint8)
    r = run(tmp_path, bits, 10 * MILLION)
    assert not r.verdict.passed
    assert {"Frequency", "CumulativeSums", "Runs"} <= rejected(r)


def test_randu_fails(tmp_path: Path) -> None:
    words = lcg_words(65539, 0, 2 ** 31, 1, MILLION // 31 + 1)
    r = run(tmp_path, word_bits(words, 31)[:MILLION], MILLION)  # every bit it makes
    assert not r.verdict.passed
    assert {"BlockFrequency", "NonOverlappingTemplate"} <= rejected(r)


def test_the_low_bits_of_a_32_bit_lcg_fail(tmp_path: Path) -> None:
    words = lcg_words(1664525, 1013904223, 2 ** 32, 12345, MILLION // 8)
    r = run(tmp_path, word_bits(words, 8), MILLION)  # the low byte of each output
    assert not r.verdict.passed
    assert {"Rank", "LongestRun", "FFT"} <= rejected(r)


def test_a_periodic_pattern_fails(tmp_path: Path) -> None:
    period = np.random.default_rng(4).integers(0, 2, 4096, dtype=np.uint8)
    r = run(tmp_path, np.tile(period, MILLION // 4096 + 1)[:MILLION], MILLION)
    assert not r.verdict.passed
    assert {"Serial", "ApproximateEntropy", "Universal"} <= rejected(r)


def drbg_bits(cls: type, count: int, seed: bytes) -> np.ndarray:
    drbg = cls(SeededSource(seed), personalization=b"sp 800-22 power test")
    data = b"".join(drbg.generate(min(1 << 16, count // 8 - i))
                    for i in range(0, count // 8, 1 << 16))
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8))


def test_a_drbg_repeated_every_2_20_bits_fails(tmp_path: Path) -> None:
    once = drbg_bits(CtrDrbg, 1 << 20, b"repeat")
    r = run(tmp_path, np.tile(once, 4), 4 << 20)
    assert not r.verdict.passed
    assert {"Serial", "ApproximateEntropy"} <= rejected(r)
    # the same DRBG without the repetition passes
    assert run(tmp_path, drbg_bits(CtrDrbg, 4 << 20, b"repeat"), 4 << 20).verdict.passed


def test_the_same_repeated_drbg_fails_across_ten_separate_sequences(tmp_path: Path) -> None:
    """Ten 10^6-bit sequences cut from a stream that repeats every 2^20 bits: none holds a
    repetition, but their P-values are nearly equal (the uniformity of each column)."""
    once = drbg_bits(CtrDrbg, 1 << 20, b"repeat")
    r = run(tmp_path, np.tile(once, 10)[: 10 * MILLION], MILLION, streams=10)
    assert not r.verdict.passed
    assert "uniformity" in {j.figure for j in r.verdict.judged if j.rejected}


@pytest.mark.parametrize("cls", [CtrDrbg, HmacDrbg])
def test_the_projects_drbgs_pass(tmp_path: Path, cls: type) -> None:
    r = run(tmp_path, drbg_bits(cls, 3 * MILLION, b"etg sp 800-22"), MILLION, streams=3)
    assert r.verdict.passed, r.verdict.text
    assert r.streams == 3 and {j.figure for j in r.verdict.judged} == {"proportion",
                                                                        "uniformity"}
