"""The computed basic strategy and its per-decision oracle (issue 11 point 2)."""

from __future__ import annotations

import pytest

from firmware.math.ruleset import GameRules, load
from firmware.math.strategy.basic import strategy_for, values_of
from firmware.math.strategy.chart import render

FULL = ["hit", "stand", "double", "split", "surrender"]


@pytest.fixture(scope="module")
def six_deck() -> object:
    return strategy_for(load("blackjack"))


@pytest.mark.parametrize("up,cards,want", [
    (10, (10, 6), "surrender"),  # baseline §1.9 late surrender: 16 v 10
    (6, (10, 2), "stand"),
    (2, (10, 2), "hit"),
    (6, (6, 5), "double"),
    (1, (6, 5), "hit"),  # S17 six decks: hit 11 v A
    (5, (8, 8), "split"),
    (7, (9, 9), "stand"),
    (6, (10, 10), "stand"),
    (3, (1, 7), "double"),
    (9, (1, 7), "hit"),
])
def test_textbook_cells_of_the_six_deck_s17_game(six_deck, up, cards, want) -> None:  # type: ignore[no-untyped-def]
    legal = [a for a in FULL if a != "split" or cards[0] == cards[1]]
    assert six_deck.decide(up, cards, legal).action == want


def test_answer_is_always_legal(six_deck) -> None:  # type: ignore[no-untyped-def]
    """An automatic player must never send a decision the engine would reject."""
    for up in range(1, 11):
        for a in range(1, 11):
            for b in range(1, 11):
                for legal in (["hit", "stand"], ["stand"], ["stand", "double"], FULL):
                    assert six_deck.decide(up, (a, b), legal).action in legal


def test_insurance_never_for_a_six_deck_shoe(six_deck) -> None:  # type: ignore[no-untyped-def]
    """baseline §1.5: insurance pays 2 to 1; P(ten) < 1/3 so basic strategy never takes it."""
    assert six_deck.decide(1, (10, 7), ["insurance", "no-insurance"]).action == "no-insurance"


def test_values_of_engine_codes() -> None:
    assert values_of([0, 4 * 9 + 2, 4 * 12 + 3]) == (1, 10, 10)


def test_cached_by_rules_hash() -> None:
    assert strategy_for(load("blackjack")) is strategy_for(load("blackjack"))
    assert strategy_for(load("blackjack", {"decks": 2})) is not strategy_for(load("blackjack"))


def std_rules(decks: int = 6) -> GameRules:
    """Split to Double as its Rules Submission has it (decks may go to 0, infinite)."""
    return load("split-to-double").with_(decks=decks)


def test_633b26_e2_strategy_doubles_a_split_ace_and_ten() -> None:
    """633b.26(e)(1)(iii), 633b.26(e)(2): the rules let a split 21 double, and with 4x
    doubles the ace as 1 (hard 11) is worth more doubled than 21 standing against most
    up cards; the engine's legal list for that hand is ["stand", "double"]."""
    rules = std_rules()
    assert rules.auto_stand_21 is False
    s = strategy_for(rules)
    acts = {up: s.decide(up, (1, 10), ["stand", "double"], split_hand=True).action
            for up in range(1, 11)}
    assert "double" in acts.values()
    # the engine's Rules object gives the same strategy (the auto-player passes it)
    from firmware.engine import load_rules

    assert strategy_for(load_rules("split-to-double")) is s


def test_split_to_double_doubles_only_1x_or_4x_and_never_hits() -> None:
    """633b.26(e)(2)(i): a double is 1x-4x; its value is linear, so only 1x or 4x is best."""
    s = strategy_for(std_rules())
    seen = set()
    for up in range(1, 11):
        for a in range(1, 11):
            for b in range(a, 11):
                d = s.decide(up, (a, b), ["stand", "double", "split", "surrender"])
                assert d.action != "hit"
                if d.action == "double":
                    seen.add(d.times)
    assert seen <= {1, 4} and 4 in seen


def test_split_to_double_prints_every_two_card_start() -> None:
    """633b.26(e)(1)(i): the initial two cards split whatever their values: one row each."""
    text = render(std_rules(0))
    assert "2,3" in text and "T,T" not in text.split("A,A")[0]


def test_printed_table_has_every_section() -> None:
    text = render(load("blackjack"))
    for part in ("Hard totals", "Soft totals", "Pairs", "Insurance: never"):
        assert part in text
