"""Good and bad generators for the power tests of the certification battery.

Each bad generator has one classic defect a lab is expected to catch; the good one is
numpy's PCG64 with exact (rejection-free, table-driven) sampling of the configured
probabilities.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from rng.cert.tables import OutcomeTable, bingo_table

TARGETS = bingo_table("target", [30, 25, 20, 15, 10, 8, 6, 4, 3, 2])
MULTIPLIERS = bingo_table("multiplier", [500, 300, 150, 40, 8, 2])
U8 = npt.NDArray[np.uint8]


def good(table: OutcomeTable, n: int, seed: int) -> U8:
    rng = np.random.default_rng(seed)
    return rng.choice(table.k, size=n, p=table.probabilities).astype(np.uint8)


def modulo_biased_cards(n: int, seed: int) -> U8:
    """One random byte per card, reduced mod 52: 256 = 4*52 + 48, so 48 cards are favoured."""
    b = np.random.default_rng(seed).integers(0, 256, size=n)
    return (b % 52).astype(np.uint8)


def lcg_low_bits_cards(n: int, seed: int) -> U8:
    """A 32-bit LCG used with x mod 52: its low two bits have period 4."""
    x = np.empty(n, dtype=np.uint64)
    state = np.uint64(seed & 0xFFFFFFFF)
    a, c, mask = np.uint64(1664525), np.uint64(1013904223), np.uint64(0xFFFFFFFF)
    for i in range(n):
        state = (a * state + c) & mask
        x[i] = state
    return (x % np.uint64(52)).astype(np.uint8)


def repeated_seed(table: OutcomeTable, n: int, seed: int, every: int) -> U8:
    """A good generator re-seeded with the same seed every ``every`` draws (power cycles)."""
    block = good(table, every, seed)
    return np.resize(block, n)


def wrong_weight_order(table: OutcomeTable, n: int, seed: int) -> U8:
    """Weights applied to the values sorted as *strings* (10, 100, 2, 25, 5, 50)."""
    by_string = sorted(range(table.k), key=lambda i: table.labels[i])
    rng = np.random.default_rng(seed)
    slot = rng.choice(table.k, size=n, p=table.probabilities)
    return np.asarray(by_string, dtype=np.uint8)[slot]


def off_by_one_cumulative(table: OutcomeTable, n: int, seed: int) -> U8:
    """r in [0, total) looked up with side='left': a value's last ticket goes to the next."""
    cum = np.cumsum(table.weights)
    r = np.random.default_rng(seed).integers(0, int(cum[-1]), size=n)
    return np.minimum(np.searchsorted(cum, r, side="left"), table.k - 1).astype(np.uint8)


def fisher_yates(base: npt.NDArray[np.int64], shoes: int, seed: int, *, off_by_one: bool
                 ) -> npt.NDArray[np.int64]:
    """Shuffles; with ``off_by_one`` j is drawn from [0, i) instead of [0, i] (Sattolo)."""
    rng = np.random.default_rng(seed)
    rows = np.tile(base, (shoes, 1))
    idx = np.arange(shoes)
    for i in range(base.size - 1, 0, -1):
        j = rng.integers(0, i if off_by_one else i + 1, size=shoes)
        tmp = rows[idx, j]
        rows[idx, j] = rows[:, i]
        rows[:, i] = tmp
    return rows


def dependent_pairs(n: int, seed: int) -> tuple[U8, U8]:
    """Target and multiplier both scaled from ONE uniform: not independent."""
    u = np.random.default_rng(seed).random(n)
    t = np.searchsorted(np.cumsum(TARGETS.probabilities), u, side="right")
    m = np.searchsorted(np.cumsum(MULTIPLIERS.probabilities), u, side="right")
    return (np.minimum(t, TARGETS.k - 1).astype(np.uint8),
            np.minimum(m, MULTIPLIERS.k - 1).astype(np.uint8))
