"""A run split into blocks (tasks on a cluster) gives the statistics of one pass.

Each block's battery is made where it is drawn (:meth:`OutcomeBattery.part`) and the
blocks are merged in order; every test but the overlaps test (which compares windows
within blocks and sampled windows across them, docs/cert.md) must come out *exactly*
as a single battery fed the whole sequence computes it: same statistic, same p-value,
same count. Block sizes are uneven on purpose (not multiples of the poker hand or the
serial lags; blocks shorter than a lag, a hand, a gap; empty blocks).
"""

from __future__ import annotations

import pickle
from collections import Counter
from itertools import pairwise
from typing import Any

import numpy as np
import pytest

from rng.cert.battery import OutcomeBattery
from rng.cert.coupon import CouponCollector
from rng.cert.frequency import IndependenceCounter
from rng.cert.shuffles import ShuffleBattery
from rng.cert.tables import OutcomeTable, card_table

MULTIPLIERS = OutcomeTable("multiplier", ("2", "3", "5", "10", "25", "100"),
                           (10000, 2701, 1004, 271, 101, 37))


def _split(n: int, rng: np.random.Generator) -> list[int]:
    cuts = sorted(rng.choice(np.arange(1, n), size=23, replace=False).tolist())
    cuts += [cuts[3], cuts[3] + 1, cuts[3] + 3, cuts[7] + 2]  # empty and tiny blocks
    return sorted([0, *cuts, n])


def _same(a: OutcomeBattery, b: OutcomeBattery) -> None:
    ra, rb = a.results(), b.results()
    assert [r.name for r in ra] == [r.name for r in rb]
    for x, y in zip(ra, rb, strict=True):
        if "overlaps" in x.name:
            continue
        assert (x.statistic, x.p_value, x.n, x.applicable) == (
            y.statistic, y.p_value, y.n, y.applicable), x.name


def _sent(part: Any, pickled: bool) -> Any:
    """A block's battery as the run receives it: pickled on a cluster (the counts a block
    left empty are sent short or as their shape alone), as it is in one process."""
    return pickle.loads(pickle.dumps(part, protocol=5)) if pickled else part


@pytest.mark.parametrize("pickled", [False, True], ids=["here", "pickled"])
@pytest.mark.parametrize("table", [MULTIPLIERS, card_table()], ids=["multiplier", "card"])
def test_blocks_merged_in_order_equal_one_pass(table: OutcomeTable, pickled: bool) -> None:
    rng = np.random.default_rng(23)
    n = 60_000
    x = rng.choice(table.k, size=n, p=table.probabilities).astype(np.uint8)
    whole = OutcomeBattery(table, n)
    for lo in range(0, n, 4096):  # the single machine reads in chunks of its own
        whole.update(x[lo : lo + 4096])
    cuts = _split(n, rng)
    merged = _sent(OutcomeBattery.part(table, n, x[: cuts[1]], 0), pickled)
    for lo, hi in pairwise(cuts[1:]):
        merged.merge(_sent(OutcomeBattery.part(table, n, x[lo:hi], lo), pickled))
    assert merged.n == whole.n == n
    _same(whole, merged)
    assert merged.coupon.hist == whole.coupon.hist and sum(whole.coupon.hist.values()) > 20


def test_blocks_must_merge_in_order() -> None:
    x = np.zeros(100, dtype=np.uint8)
    a = OutcomeBattery.part(MULTIPLIERS, 200, x, 0)
    with pytest.raises(ValueError, match="in order"):
        a.merge(OutcomeBattery.part(MULTIPLIERS, 200, x, 150))


def _coupon_reference(x: list[int], k: int) -> tuple[Counter[int], int]:
    lengths: Counter[int] = Counter()
    seen: set[int] = set()
    start = 0
    for i, v in enumerate(x):
        seen.add(v)
        if len(seen) == k:
            lengths[i - start + 1] += 1
            seen, start = set(), i + 1
    return lengths, len(x) - start


def test_coupon_segments_match_a_plain_loop_whatever_the_blocks() -> None:
    rng = np.random.default_rng(5)
    p = np.array([0.5, 0.3, 0.15, 0.05])
    x = rng.choice(4, size=5000, p=p)
    ref, open_len = _coupon_reference(x.tolist(), 4)
    for size in (1, 7, 64, 5000):
        c = CouponCollector(p, "t")
        for lo in range(0, x.size, size):
            c.update(x[lo : lo + size])
        assert c.hist == ref and c.open_len == open_len, size


def test_shuffles_and_pairs_merge_exactly() -> None:
    rng = np.random.default_rng(9)
    m = np.full(4, 2)
    shoes = np.array([rng.permutation(np.repeat(np.arange(4), 2)) for _ in range(300)])
    shoes[250] = shoes[10]  # one repeat across blocks
    whole = ShuffleBattery(m)
    whole.update(shoes)
    a, b, empty = ShuffleBattery(m), ShuffleBattery(m), ShuffleBattery(m)
    a.update(shoes[:200])
    b.update(shoes[200:])
    a.merge(_sent(empty, True))  # a block without shoes, as a cluster returns it
    a.merge(_sent(b, True))
    assert [(r.statistic, r.p_value) for r in a.results()] == [
        (r.statistic, r.p_value) for r in whole.results()]
    assert a.repeats == whole.repeats >= 1
    assert (a.position == whole.position).all() and (a.pairs == whole.pairs).all()
    t, u = rng.integers(0, 3, 500), rng.integers(0, 4, 500)
    i1, i2, i3 = (IndependenceCounter(3, 4, "p") for _ in range(3))
    i1.update(t, u)
    i2.update(t[:123], u[:123])
    i3.update(t[123:], u[123:])
    i2.merge(i3)
    assert i1.results()[0].statistic == i2.results()[0].statistic


def test_a_block_longer_than_the_part_chunk_is_the_same_battery() -> None:
    """A block goes through the streaming tests PART_CHUNK outcomes at a time: the same
    statistics as one pass."""
    from rng.cert.battery import PART_CHUNK

    table = card_table()
    rng = np.random.default_rng(5)
    n = 2 * PART_CHUNK + 777
    x = rng.integers(0, table.k, n).astype(np.uint8)
    whole = OutcomeBattery(table, n)
    whole.update(x)
    part = OutcomeBattery.part(table, n, x, 0)
    _same(whole, part)
    assert (part.frequency.counts == whole.frequency.counts).all()
