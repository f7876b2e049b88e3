"""The fast path's own generator (issue 49): xoshiro256** inside the compiled kernel,
Lemire's bounded draw, the stream a function of the seed alone.

The oracles here are written from the published algorithms, not from the kernel:
xoshiro256** (D. Blackman, S. Vigna, "Scrambled linear pseudorandom number generators",
ACM TOMS 47(4), 2021; the reference C at prng.di.unimi.it) and the multiply-and-reject
bounded draw (D. Lemire, "Fast random integer generation in an interval", ACM TOMACS
29(1), 2019).
"""

from __future__ import annotations

import numpy as np
import pytest

from firmware.math.ruleset import load
from firmware.math.simulation import fast_path_kernel as k
from firmware.math.simulation.fast_path import play_fast_rounds

M64 = (1 << 64) - 1


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


def xoshiro(state: list[int]) -> int:
    """The reference next(): the output of ``state`` (changed in place)."""
    s0, s1, s2, s3 = state
    out = (_rotl((s1 * 5) & M64, 7) * 9) & M64
    t = (s1 << 17) & M64
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[:] = [s0, s1, s2, s3]
    return out


def lemire(state: list[int], n: int) -> int:
    """Uniform in [0, n) from the top 32 bits of each output (n < 2^32)."""
    m = (xoshiro(state) >> 32) * n
    if (m & 0xFFFFFFFF) < n:
        floor = (2**32 - n) % n
        while (m & 0xFFFFFFFF) < floor:
            m = (xoshiro(state) >> 32) * n
    return m >> 32


def test_xoshiro256starstar_is_the_published_algorithm() -> None:
    """2,000 outputs of the kernel's generator equal the reference's, from a state with
    every bit pattern and from (1, 2, 3, 4), whose first output is rotl(2 * 5, 7) * 9 =
    11520 by hand."""
    for seed in ([1, 2, 3, 4], [0x9E3779B97F4A7C15, M64, 1 << 63, 0x0123456789ABCDEF]):
        rs = np.array(seed, np.uint64)
        ref = list(seed)
        got = [int(k._next64(rs)) for _ in range(2000)]
        assert got == [xoshiro(ref) for _ in range(2000)]
        assert [int(x) for x in rs] == ref
    rs = np.array([1, 2, 3, 4], np.uint64)
    assert int(k._next64(rs)) == 11520


@pytest.mark.parametrize("n", [1, 2, 3, 10, 52, 416, 2**31 + 1, 2**32 - 1])
def test_bounded_draw_is_lemires_multiply_and_reject(n: int) -> None:
    """The kernel's draw below n is Lemire's on the same stream, draw for draw (the
    bounds near 2^32 reject often: the rejection path is exercised)."""
    st = np.zeros(4, np.int64)
    st[k.ST_GENERATOR] = k.XOSHIRO
    rs = np.array([7, 11, 13, 17], np.uint64)
    ref = [7, 11, 13, 17]
    got = [int(k._below(st, rs, n)) for _ in range(3000)]
    assert got == [lemire(ref, n) for _ in range(3000)]
    assert all(0 <= g < n for g in got)


def test_bounded_draw_is_uniform() -> None:
    """A chi-square over 52 cells (a deck's cards) of 520,000 draws: within the 0.1% and
    99.9% points of chi-square with 51 degrees of freedom (22.6 .. 89.3)."""
    st = np.zeros(4, np.int64)
    st[k.ST_GENERATOR] = k.XOSHIRO
    rs = np.random.SeedSequence(49).generate_state(4, np.uint64)
    counts = np.bincount([k._below(st, rs, 52) for _ in range(520_000)], minlength=52)
    chi2 = float(((counts - 10_000) ** 2 / 10_000).sum())
    assert 22.6 < chi2 < 89.3, chi2


def test_the_stream_is_a_function_of_the_seed() -> None:
    """A seed repeats its run exactly; another seed, or another task of the same seed
    (``etg rtp``'s spawn keys), plays another run; the state is the seed's first four
    64-bit words (SeedSequence.generate_state), never all zero."""
    rules = load("blackjack")
    runs = [play_fast_rounds(rules, 30_000, np.random.SeedSequence(s, spawn_key=key))
            for s, key in ((5, ()), (5, ()), (6, ()), (5, (1,)))]
    same = [(r.total, r.total_sq, r.outcomes) for r in runs]
    assert same[0] == same[1]
    assert same[0] != same[2] and same[0] != same[3] and same[2] != same[3]
    state = np.random.SeedSequence(5).generate_state(4, np.uint64)
    assert state.any()


def test_etg_rtp_states_the_generator_of_its_stream() -> None:
    """A lab reproducing a seeded `etg rtp` run reads which stream the seed drove: the
    fast path's changed with issue 49 (MT19937 before), so the JSON names it."""
    from firmware.math.simulation.rtp import run_rtp

    rules = load("blackjack")
    fast = run_rtp(rules, 2000, jobs=1, seed=1, fast=True).to_json()
    engine = run_rtp(rules, 200, jobs=1, seed=1).to_json()
    assert fast["generator"].startswith("xoshiro256**")
    assert "PCG64" in engine["generator"]
