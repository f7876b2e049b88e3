"""The PAR's line counts keep only the rows a round reads (card_removal_par.KeptRows, a
RowView over them): every reader must index kept rows only, and what it reads must be
what the full array holds.

Found by ``etg par --variant blackjack`` (fixed in f3816ac): a split hand's first card
whose child of some value is -1 (that value is out of the shoe, or busts) read row 0 for
it, then masked the value; row 0 (the first hard-21 hand, many cards) is not kept, so the
RowView refused it ("a row whose line counts were not kept").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from firmware.math.games.hitting import card_removal_par
from firmware.math.games.hitting.card_removal_par import KeptRows, line_counts
from firmware.math.hands.backward_pass import TableDecider, backward
from firmware.math.hands.hand_value import HIT, STAND
from firmware.math.hands.up_card import hand_table, split_instances, up_card
from firmware.math.ruleset import load


def test_finding_split_bust_child_reads_a_kept_row() -> None:
    """One deck, 8-8 against a 6, resplits to four hands: the split hand with two more
    8s out has no 8 left to draw (its first card's child of value 8 is -1). hand_table
    over the kept rows equals hand_table over the full array, for every hand kind."""
    rules = load("blackjack", {"decks": 1, "late_surrender": False, "max_hands": 4})
    pair, up = 8, 6
    counts = rules.shoe.counts()
    assert counts is not None
    c0 = counts[pair - 1]
    uc = up_card(rules, up, tuple(split_instances(rules, pair, c0, True)))
    f = uc.forest
    uc.ensure(np.ones(f.rows, dtype=bool))
    act = np.where((f.nc >= 2)[:, None], np.where((f.total < 17)[:, None], HIT, STAND), -1)
    full = backward(rules, f, uc.pay, TableDecider(act), masks=uc.masks()).value
    keep = KeptRows(f.nc)
    # the case the finding needs: a first card with a child that is no row, row 0 not kept
    firsts = [f.row(i, (pair,)) for i in range(len(f.instances))]
    assert any((f.child[r] < 0).any() for r in firsts)
    assert 0 not in keep.rows
    whole = hand_table([(uc, full)], pair)
    kept = hand_table([(uc, keep.view(full[keep.rows]))], pair)  # type: ignore[list-item]
    for j in range(len(f.instances) + 1):
        (p1, v1), (p2, v2) = whole(j, False), kept(j, False)
        assert np.array_equal(p1, p2) and np.array_equal(v1, v2), j


@pytest.mark.parametrize("variant,overrides,ups", [
    ("blackjack", {"decks": 1}, tuple(range(1, 11))),
    ("blackjack", {"decks": 2, "max_hands": 4, "resplit_aces": True}, (1, 6, 8)),
    ("free-bet", {}, (6,)),  # lammer split hands
    ("spanish21", {}, (7,)),  # the suited 7-7 against a 7 (a third card's row)
])
def test_every_reader_of_the_kept_rows_reads_what_the_full_array_holds(
        monkeypatch: pytest.MonkeyPatch, variant: str, overrides: dict[str, Any],
        ups: tuple[int, ...]) -> None:
    """The whole round's line counts (every RowView reader: the start's hand, the split
    hands through hand_table, Spanish 21's 7-7 options) over the kept rows equal those
    over every row (a RowView that keeps all): no reader reads a row that is not kept,
    and none reads a kept row at the wrong place."""
    rules = load(variant, overrides)
    kept = line_counts(rules, ups)
    monkeypatch.setattr(card_removal_par, "KEPT_CARDS", 10**6)
    every = line_counts(rules, ups)
    assert np.array_equal(kept.all_rounds, every.all_rounds)
    assert np.array_equal(kept.no_split, every.no_split)
    assert np.array_equal(kept.p_split, every.p_split)
