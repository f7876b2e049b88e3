"""Cards, decks, hand totals, Blackjack and bust (issue 3 point 1; § 633a.3(e), § 633a.1)."""

from __future__ import annotations

import pytest

from firmware.engine.cards import CODE, DECKS, VALUE, parse_card
from firmware.engine.hand import Hand
from firmware.engine.shoe import Shoe


def make(*codes: str, split: bool = False) -> Hand:
    h = Hand(100)
    h.from_split = split
    for c in codes:
        h.add(parse_card(c))
    return h


def test_parse_and_print_every_card() -> None:
    assert len(set(CODE)) == 52
    for i, text in enumerate(CODE):
        assert parse_card(text) == i
    assert parse_card("td") == parse_card("TD")


@pytest.mark.parametrize("bad", ["", "1S", "TX", "10S", "AS ", "ASX", "ZZ"])
def test_parse_rejects_non_cards(bad: str) -> None:
    if bad == "AS ":
        assert parse_card(bad) == parse_card("AS")  # surrounding space is tolerated
        return
    with pytest.raises(ValueError, match="not a card"):
        parse_card(bad)


def test_633a_3_e_values_face_cards_ten_ace_one_or_eleven() -> None:
    assert [VALUE[parse_card(r + "S")] for r in "A23456789TJQK"] == [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10,
    ]
    for codes, total in ((("AS", "6D"), (17, True)), (("AS", "6D", "9C"), (16, False)),
                         (("AS", "AD", "9C"), (21, True))):
        h = make(*codes)
        assert (h.total, h.soft) == total


def test_hand_total_soft_and_hard() -> None:
    h = make("AS", "6D")
    assert (h.total, h.soft) == (17, True)
    h.add(parse_card("KC"))
    assert (h.total, h.soft) == (17, False)


def test_633a_1_blackjack_is_ace_and_ten_value_as_first_two_cards() -> None:
    for ten in ("TS", "JH", "QD", "KC"):
        assert make("AS", ten).is_blackjack
        assert make(ten, "AS").is_blackjack
    assert not make("AS", "9S").is_blackjack
    assert not make("AS", "5S", "5D").is_blackjack  # three cards: 21, not Blackjack


def test_baseline_1_8_ace_and_ten_after_split_is_21_not_blackjack() -> None:
    h = make("AS", "KD", split=True)
    assert h.total == 21 and not h.is_blackjack


def test_bust_over_21() -> None:
    h = make("KS", "QS", "2D")
    assert h.total == 22


def test_decks_standard_52_and_spanish_48_without_ten_spots() -> None:
    assert len(DECKS["standard"]) == 52
    spanish = DECKS["spanish"]
    assert len(spanish) == 48
    assert not any(CODE[c][0] == "T" for c in spanish)
    assert all(any(CODE[c][0] == r for c in spanish) for r in "JQK")


def test_shoe_knows_what_it_can_still_contain() -> None:
    shoe = Shoe(2)
    shoe.load(2)
    assert shoe.remaining == 104
    ace = parse_card("AS")
    shoe.take(ace)
    assert shoe.refusal(ace) is None
    shoe.take(ace)
    assert "already read" in str(shoe.refusal(ace))
    sp = Shoe(6, "spanish")
    sp.load(6)
    assert sp.remaining == 288
    assert "cannot be in a spanish shoe" in str(sp.refusal(parse_card("TD")))
