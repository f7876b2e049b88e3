"""Issue 49: `etg rtp`'s batched, compiled shuffles give exactly numpy's ``rng.shuffle``
shoes, shoe after shoe, for every shoe size the rules allow."""

from __future__ import annotations

import numpy as np
import pytest

from firmware.engine.cards import DECKS
from firmware.math.enginesim import _Shoes

pytest.importorskip("numba")


@pytest.mark.parametrize(("kind", "decks"), [("standard", 1), ("standard", 2),
                                           ("standard", 6), ("spanish", 8)])
def test_batched_shoes_are_numpys_shuffles(kind: str, decks: int) -> None:
    deck = np.array(DECKS[kind] * decks, dtype=np.int64)
    fast = _Shoes(np.random.default_rng([49, decks]), deck, batched=True)
    plain = _Shoes(np.random.default_rng([49, decks]), deck, batched=False)
    assert fast.batched and not plain.batched
    reference = np.random.default_rng([49, decks])
    shoe = np.empty_like(deck)
    for _ in range(3 * _Shoes.BATCH + 7):  # across batch ends and read-ahead refills
        shoe[:] = deck
        reference.shuffle(shoe)
        want = shoe[:_Shoes.KEEP].tolist()
        assert fast() == want
        assert plain() == want


def test_a_draw_is_refused_where_the_shuffles_read_ahead() -> None:
    """The batched shuffles read the generator ahead: a game that also draws from it
    (Bingo) is dealt from rng.shuffle itself (an RNG draw there would be an error)."""
    from firmware.math.enginesim import play_engine_rounds
    from firmware.math.ruleset import load

    tally = play_engine_rounds(load("bingo"), 50, np.random.SeedSequence(3))
    assert tally.rounds == 50
