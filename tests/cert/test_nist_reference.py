"""The fifteen SP 800-22 tests equal NIST's reference implementation (sts 2.1.2).

The expected P-values (tests/cert/nist_reference.py) are what the reference printed on
the first 10^6 bits of each of its sample files; the sample bits are NIST's
(tests/cert/data, public domain, packed eight to a byte, first bit highest), and the
expansions of e, pi, sqrt 2 and sqrt 3 are checked against exact integer arithmetic.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from binary_constants import e_bits, pi_bits, sqrt_bits
from nist_reference import REFERENCE

from rng.cert.nist.complexity import linear_complexities
from rng.cert.nist.rank_dft import gf2_ranks, reference_ranks
from rng.cert.nist.suite import SuiteParams, columns, run_sequence

DATA = Path(__file__).parent / "data"
N = 1_000_000


def sample(name: str) -> np.ndarray:
    return np.unpackbits(np.fromfile(DATA / f"nist-{name}.bin", dtype=np.uint8))[:N]


@pytest.mark.parametrize("name", ["e", "pi", "sqrt2", "sqrt3", "sha1"])
def test_every_p_value_equals_the_reference_to_six_decimals(name: str) -> None:
    params = SuiteParams(N)
    p, _ = run_sequence(sample(name), params)
    cols = columns(params)
    assert len(cols) == len(REFERENCE[name]) == 188
    for col, mine, ref in zip(cols, p, REFERENCE[name], strict=True):
        if np.isnan(mine):  # not applicable: the reference writes 0.000000
            assert col.key.startswith("random-excursions") and ref == "0.000000", col.title
            continue
        assert f"{mine:.6f}" == ref, col.title


def test_the_sha1_sample_is_too_short_a_walk_for_random_excursions() -> None:
    p, _ = run_sequence(sample("sha1"), SuiteParams(N))
    keys = [c.key for c in columns(SuiteParams(N))]
    excursion = [k.startswith("random-excursions") for k in keys]
    assert np.isnan(p[excursion]).all() and not np.isnan(p[~np.array(excursion)]).any()


@pytest.mark.parametrize(("name", "exact"), [
    ("e", e_bits), ("pi", pi_bits), ("sqrt2", lambda n: sqrt_bits(2, n)),
    ("sqrt3", lambda n: sqrt_bits(3, n))])
def test_the_sample_files_are_the_constants_binary_expansions(name: str, exact) -> None:
    count = 200_000
    assert np.array_equal(sample(name)[:count], exact(count))


def _rows(matrices: np.ndarray) -> np.ndarray:
    packed = np.packbits(matrices, axis=2).astype(np.uint32)
    return packed[..., 0] << 24 | packed[..., 1] << 16 | packed[..., 2] << 8 | packed[..., 3]


def test_the_reference_rank_procedure_gives_the_gf2_rank() -> None:
    rng = np.random.default_rng(5)
    full = rng.integers(0, 2, size=(3000, 32, 32), dtype=np.uint8)
    low = []
    for r in (1, 8, 20, 30, 31):
        a = rng.integers(0, 2, size=(300, 32, r))
        b = rng.integers(0, 2, size=(300, r, 32))
        low.append((np.einsum("nik,nkj->nij", a, b) & 1).astype(np.uint8))
    sparse = (rng.random((2000, 32, 32)) < 0.08).astype(np.uint8)
    rows = _rows(np.concatenate([full, *low, sparse]))
    ranks = gf2_ranks(rows.copy())
    assert np.array_equal(reference_ranks(rows.copy()), ranks)
    assert set(np.unique(ranks)) >= {1, 8, 20, 30, 31, 32}


def _massey(s: list[int]) -> int:
    """Berlekamp-Massey, one bit at a time (the textbook loop), for comparison."""
    c, b = [1] + [0] * len(s), [1] + [0] * len(s)
    length, m = 0, -1
    for t in range(len(s)):
        d = s[t]
        for i in range(1, length + 1):
            d ^= c[i] & s[t - i]
        if d:
            old = c[:]
            for j in range(len(s) - t + m):
                c[j + t - m] ^= b[j]
            if length <= t // 2:
                length, m, b = t + 1 - length, t, old
    return length


def test_berlekamp_massey_on_all_blocks_at_once_equals_the_bitwise_loop() -> None:
    rng = np.random.default_rng(9)
    blocks = rng.integers(0, 2, size=(40, 200), dtype=np.uint8)
    blocks[0] = 0  # complexity 0
    blocks[1, :] = np.tile([1, 1, 0], 67)[:200]  # periodic: small complexity
    blocks[2, :199] = 0
    blocks[2, 199] = 1  # a single one at the end: complexity 200
    got = linear_complexities(blocks).tolist()
    assert got == [_massey(row.tolist()) for row in blocks]
    assert got[0] == 0 and got[2] == 200
    # SP 800-22 2.10.4's example: 1101011110001 has linear complexity 4
    example = np.array([[1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1]], np.uint8)
    assert linear_complexities(example)[0] == 4
