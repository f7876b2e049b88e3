"""Issue 49: `etg rtp` through the engine made faster with the same figures: the batched,
compiled shuffles give exactly numpy's ``rng.shuffle`` shoes, shoe after shoe, for every
shoe size the rules allow, and answers memoized across tasks change no tally."""

from __future__ import annotations

import numpy as np
import pytest

from firmware.engine.cards import DECKS
from firmware.math.simulation.engine_rounds import _Shoes

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
        head = fast()  # the first cards as Python ints, the rest of the same shoe on asking
        assert head == want[:len(head)] and len(head) >= min(_Shoes.HEAD, len(want))
        assert fast.whole() == want
        assert plain() == want and plain.whole() == want


def test_a_draw_is_refused_where_the_shuffles_read_ahead() -> None:
    """The batched shuffles read the generator ahead: a game that also draws from it
    (Bingo) is dealt from rng.shuffle itself (an RNG draw there would be an error)."""
    from firmware.math.ruleset import load
    from firmware.math.simulation.engine_rounds import play_engine_rounds

    tally = play_engine_rounds(load("bingo"), 50, np.random.SeedSequence(3))
    assert tally.rounds == 50


@pytest.mark.parametrize("variant", ["blackjack", "free-bet", "spanish21"])
def test_answers_kept_across_tasks_change_no_figure(variant: str) -> None:
    """The strategy's answers are memoized per strategy across a worker's tasks: a task
    played after others gives the tally it gives with a fresh memo."""
    from firmware.math.ruleset import load
    from firmware.math.simulation import engine_rounds as enginesim

    rules = load(variant)
    enginesim._ANSWERS.clear()
    alone = enginesim.play_engine_rounds(rules, 300, np.random.SeedSequence(11))
    enginesim._ANSWERS.clear()
    enginesim.play_engine_rounds(rules, 300, np.random.SeedSequence(12))
    assert enginesim._ANSWERS  # the first task's answers are still there
    after = enginesim.play_engine_rounds(rules, 300, np.random.SeedSequence(11))
    assert (after.total, after.total_sq, after.outcomes, after.wagers) == (
        alone.total, alone.total_sq, alone.outcomes, alone.wagers)
