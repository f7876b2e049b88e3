"""Chi-square goodness of fit of scaled draws, on DRBG output with fixed bench seeds.

Significance: each test rejects at alpha = 1e-4. This file runs 8 such tests, so for a
perfect generator the chance that any one of them fails is at most 8e-4 (Bonferroni).
The seeds are fixed, so a run is deterministic: a failure is reproducible, not flaky. These
tests guard the code path (weights to outcome, Fisher–Yates, card codes); the exact
absence of bias is proved by the exhaustive tests in test_rng_scaling.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest
from scipy.stats import chi2, chisquare

from etgcore.cards import deck
from firmware.engine.rules import rules_path
from rng import open_table_rng
from rng.batch import randbelow_batch, shuffle_batch, weighted_batch
from rng.ctr_drbg import CtrDrbg
from rng.entropy import SeededSource
from rng.lab import bingo_weights
from rng.scaling import BitSource, shuffle
from rng.settings import RngSettings

ALPHA = 1e-4
N = 1_000_000


def seeded_reader(seed: bytes) -> Callable[[int], bytes]:
    drbg = CtrDrbg(SeededSource(seed), personalization=b"chi-square test")

    def read(n: int) -> bytes:
        parts = []
        while n > 0:
            k = min(n, 1 << 16)
            parts.append(drbg.generate(k))
            n -= k
        return b"".join(parts)

    return read


# The Bingo tables of the Rules Submission when it ships, else representative tables
# (12..21 and 2x..100x from § 633b.28(e), skewed like a house-edge table).
FALLBACK = {
    "target": {12: 30, 13: 28, 14: 25, 15: 22, 16: 20, 17: 16, 18: 12, 19: 9, 20: 6, 21: 3},
    "multiplier": {2: 600, 5: 250, 10: 100, 25: 35, 50: 10, 100: 5},
}


def table(what: str) -> dict[int, int]:
    if rules_path("bingo").is_file():
        return bingo_weights(what, {}, rules_path("bingo"))
    return FALLBACK[what]


@pytest.mark.parametrize("what", ["target", "multiplier"])
def test_bingo_weight_table_chi_square_of_a_million_draws(what: str) -> None:
    """§ 633b.28(e): each value drawn with probability weight / total (10^6 draws)."""
    weights = table(what)
    values = sorted(weights)
    w = np.array([weights[v] for v in values])
    idx = weighted_batch(seeded_reader(b"chi " + what.encode()), w.tolist(), N)
    observed = np.bincount(idx, minlength=len(values))
    keep = w > 0
    assert observed[~keep].sum() == 0  # a zero weight is never drawn
    expected = N * w[keep] / w.sum()
    assert chisquare(observed[keep], expected).pvalue > ALPHA


def test_uniform_randbelow_chi_square_of_a_million_draws() -> None:
    observed = np.bincount(randbelow_batch(seeded_reader(b"chi uniform"), 37, N), minlength=37)
    assert chisquare(observed).pvalue > ALPHA


def test_table_rng_bingo_draws_chi_square() -> None:
    """The scalar path the table uses (TableRng.draw_bingo), 10^5 rounds."""
    rng = open_table_rng(RngSettings(seed_hex="0badc0de"), bench=True)
    tw, mw = table("target"), table("multiplier")
    targets, mults = [], []
    for i in range(100_000):
        d = rng.draw_bingo(i, tw, mw)
        targets.append(d.target)
        mults.append(d.multiplier)
    rng.close()
    for weights, got in ((tw, targets), (mw, mults)):
        values = [v for v in sorted(weights) if weights[v] > 0]
        observed = np.array([got.count(v) for v in values])
        w = np.array([weights[v] for v in values])
        assert chisquare(observed, len(got) * w / w.sum()).pvalue > ALPHA


def _positions_pvalue(shoes: np.ndarray, n_cards: int) -> float:
    """Chi-square of the card x position table of single-deck shuffles, (n-1)^2 df."""
    count = np.zeros((n_cards, n_cards), dtype=np.int64)
    for pos in range(n_cards):
        count[:, pos] = np.bincount(shoes[:, pos], minlength=n_cards)
    expected = shoes.shape[0] / n_cards
    stat = float(((count - expected) ** 2 / expected).sum())
    return float(chi2.sf(stat, (n_cards - 1) ** 2))


def test_card_positions_over_batch_shuffles() -> None:
    """10^5 single-deck shuffles: every card equally likely in every position."""
    shoes = shuffle_batch(seeded_reader(b"chi shuffle"), np.arange(52), 100_000)
    assert _positions_pvalue(shoes, 52) > ALPHA


def test_card_positions_over_table_shuffles() -> None:
    """The scalar Fisher–Yates the shoe uses, 2 * 10^4 Spanish single-deck shuffles."""
    read = seeded_reader(b"chi scalar shuffle")
    n = len(deck(spanish=True))
    rows = []
    for _ in range(20_000):
        items = list(range(n))
        shuffle(BitSource(read, 256), items)
        rows.append(items)
    assert _positions_pvalue(np.array(rows), n) > ALPHA


def test_all_24_orders_of_four_cards() -> None:
    rows = shuffle_batch(seeded_reader(b"chi perms"), np.arange(4), 240_000)
    code = rows @ np.array([64, 16, 4, 1])
    perms = [a * 64 + b * 16 + c * 4 + d for a, b, c, d in itertools.permutations(range(4))]
    observed = np.array([(code == p).sum() for p in perms])
    assert observed.sum() == 240_000
    assert chisquare(observed).pvalue > ALPHA
