"""58 Pa. Code § 810a.5(d) (the scaling method must preserve the distribution).

Exhaustive proofs that scaling has no bias: every possible input of a small fake byte
source is mapped, and every outcome must come out exactly as often as its weight says.

Why this proves it: the scaling consumes bits from the source and either finishes or runs
out. Counting, over ALL inputs of L bytes, the outcomes that finished, each value must
appear exactly in proportion to its probability; any bias of the method (modulo bias, a
floating-point rounding, an off-by-one interval) would show as an unequal integer count.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pytest

from rng.batch import accept, randbelow_batch, shuffle_batch, weighted_batch, word_dtype
from rng.scaling import BitSource, normalize_weights, randbelow, shuffle, weighted_choice


class Exhausted(Exception):
    pass


def fixed_source(data: bytes) -> Callable[[int], bytes]:
    """A byte source holding exactly ``data``; asking past its end raises Exhausted."""
    pos = 0

    def read(n: int) -> bytes:
        nonlocal pos
        if pos + n > len(data):
            raise Exhausted
        pos += n
        return data[pos - n: pos]

    return read


def all_inputs(n_bytes: int) -> list[bytes]:
    return [i.to_bytes(n_bytes, "big") for i in range(256**n_bytes)]


INPUTS_1 = all_inputs(1)
INPUTS_2 = all_inputs(2)


def outcome_counts(inputs: Sequence[bytes], draw: Callable[[BitSource], object]) -> Counter:
    counts: Counter = Counter()
    for data in inputs:
        try:
            counts[draw(BitSource(fixed_source(data)))] += 1
        except Exhausted:
            counts["exhausted"] += 1
    return counts


@pytest.mark.parametrize("n", range(1, 33))
def test_randbelow_is_exactly_uniform_over_every_one_byte_input(n: int) -> None:
    counts = outcome_counts(INPUTS_1, lambda b: randbelow(b, n).value)
    values = [counts[v] for v in range(n)]
    assert set(counts) - {"exhausted"} == set(range(n))
    assert len(set(values)) == 1, f"n={n}: {values}"


@pytest.mark.parametrize("n", [3, 5, 7, 10, 52, 100, 200, 255, 256, 257, 1000, 65535])
def test_randbelow_is_exactly_uniform_over_every_two_byte_input(n: int) -> None:
    counts = outcome_counts(INPUTS_2, lambda b: randbelow(b, n).value)
    values = {counts[v] for v in range(n)}
    assert len(values) == 1 and values != {0}


def test_randbelow_reports_bits_used_and_rejected() -> None:
    # n = 5 takes 3 bits; 0b111 (7) and 0b101 (5) are rejected, 0b010 (2) accepted.
    bits = BitSource(fixed_source(bytes([0b11110101, 0b00000000])))
    r = randbelow(bits, 5)
    assert (r.value, r.bits_used, r.bits_rejected) == (2, 9, 6)
    assert randbelow(BitSource(fixed_source(b"")), 1).bits_used == 0  # n = 1 costs nothing


WEIGHTS = [
    {"a": 1, "b": 2, "c": 4},
    {2: 600, 5: 250, 10: 100, 25: 35, 50: 10, 100: 5},
    {12: 3, 13: 0, 14: 1, 21: 5},
]


@pytest.mark.parametrize("weights", WEIGHTS, ids=lambda w: "-".join(map(str, w)))
def test_weighted_choice_is_exact_over_every_two_byte_input(weights: dict) -> None:
    counts = outcome_counts(INPUTS_2, lambda b: weighted_choice(b, weights)[0])
    finished = sum(c for k, c in counts.items() if k != "exhausted")
    total = sum(weights.values())
    for value, w in weights.items():
        assert counts[value] * total == w * finished, value


def test_weight_tables_are_checked_and_canonical() -> None:
    assert normalize_weights({5: 1, 2: 3}) == [(2, 3), (5, 1)]
    for bad in ({1: -1}, {1: 0}, {1: 1.5}, {1: True}):
        with pytest.raises(ValueError):
            normalize_weights(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="twice"):
        normalize_weights([(1, 1), (1, 2)])


@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_fisher_yates_gives_every_permutation_equally_often(size: int) -> None:
    def draw(b: BitSource) -> tuple[int, ...]:
        items = list(range(size))
        shuffle(b, items)
        return tuple(items)

    counts = outcome_counts(INPUTS_2, draw)
    perms = list(itertools.permutations(range(size)))
    values = {counts[p] for p in perms}
    assert len(values) == 1 and values != {0}, values


# -- batch (numpy) versions ---------------------------------------------------------------


@pytest.mark.parametrize("n", [*range(2, 257), 300, 1000, 4099, 40000, 65536])
def test_batch_accept_is_exactly_uniform_over_every_word(n: int) -> None:
    dt = word_dtype((n - 1).bit_length())
    every_word = np.arange(1 << (8 * dt.itemsize), dtype=np.uint64).astype(dt)
    counts = np.bincount(accept(every_word, n), minlength=n)
    assert len(counts) == n and counts.min() == counts.max() > 0


def cycling_source(word_bytes: int) -> Callable[[int], bytes]:
    """Every word value in order, again and again: one cycle holds each input once."""
    cycle = np.arange(1 << (8 * word_bytes), dtype=np.uint64).astype(
        word_dtype(8 * word_bytes)).tobytes()
    pos = 0

    def read(n: int) -> bytes:
        nonlocal pos
        out = bytearray()
        while len(out) < n:
            take = min(n - len(out), len(cycle) - pos)
            out += cycle[pos: pos + take]
            pos = (pos + take) % len(cycle)
        return bytes(out)

    return read


@pytest.mark.parametrize("n", [3, 10, 52, 200, 1000])
def test_batch_randbelow_over_whole_cycles_is_exactly_uniform(n: int) -> None:
    k = (n - 1).bit_length()
    wb = word_dtype(k).itemsize
    per_cycle = (1 << (8 * wb)) // (1 << k) * n  # accepted values in one cycle
    out = randbelow_batch(cycling_source(wb), n, 3 * per_cycle)
    counts = np.bincount(out, minlength=n)
    assert counts.min() == counts.max() == 3 * per_cycle // n


@pytest.mark.parametrize("weights", [[1, 2, 4], [600, 250, 100, 35, 10, 5], [3, 0, 1, 5]])
def test_batch_weighted_over_whole_cycles_is_exact(weights: list[int]) -> None:
    total = sum(weights)
    k = (total - 1).bit_length()
    wb = word_dtype(k).itemsize
    per_cycle = (1 << (8 * wb)) // (1 << k) * total
    out = weighted_batch(cycling_source(wb), weights, per_cycle)
    counts = np.bincount(out, minlength=len(weights))
    assert counts.tolist() == [w * per_cycle // total for w in weights]


def test_batch_uses_integers_only_and_real_permutations() -> None:
    read = cycling_source(2)
    rows = shuffle_batch(read, list(range(52)), 50)
    assert rows.dtype == np.int64
    assert all(sorted(r) == list(range(52)) for r in rows.tolist())
    assert randbelow_batch(read, 1, 5).tolist() == [0] * 5
    with pytest.raises(ValueError):
        randbelow_batch(read, 0, 1)
    with pytest.raises(ValueError):
        weighted_batch(read, [0, 0], 1)


def test_batch_weights_whose_total_would_wrap_int64_are_refused() -> None:
    """Three weights of 2^63 - 1 wrap an int64 cumsum to a positive total; the batch must
    refuse them rather than draw from a silently skewed table."""
    read = cycling_source(2)
    with pytest.raises(ValueError, match="2\\^63"):
        weighted_batch(read, [(1 << 63) - 1] * 3, 1)
    assert set(weighted_batch(read, [1, (1 << 63) - 2], 200).tolist()) <= {0, 1}
