"""Issue 49: the engine checks a decision with ``is_legal`` (only the action asked about
evaluated) instead of building ``legal_now``'s whole list: the two agree on every action
in every state random play reaches, in every shipped game the bench's auto-player deals
(Bingo's RNG draws it does not serve; its decisions are Blackjack's)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from firmware.bench.engine_player import EnginePlayer
from firmware.engine.decisions import is_legal, legal_now
from firmware.engine.game import Game
from firmware.engine.hand import Hand
from firmware.engine.inputs import ACTIONS, Decision, Input
from firmware.engine.rules import load_rules

VARIANTS = ["blackjack", "split-to-double", "free-bet", "spanish21"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_is_legal_agrees_with_legal_now_everywhere(variant: str) -> None:
    rules = load_rules(variant)
    game = Game(rules, seats=rules.max_seats)
    pick = random.Random(variant)
    checked: set[tuple[str, ...]] = set()

    def policy(hand: Hand, up: int, legal: Sequence[str]) -> tuple[str, int]:
        return pick.choice(list(legal)), pick.choice(list(rules.double_times))

    def check_then_apply(inp: Input) -> None:
        r = game.round
        if isinstance(inp, Decision) and game.need == "decision" and game.phase != "insurance":
            seat = r.players[r.turn_seat]
            h = seat.hands[r.turn_hand]
            legal = legal_now(r, seat, h)
            for action in (*ACTIONS, "no-such-action"):
                assert is_legal(r, seat, h, action) == (action in legal), (action, legal)
            checked.add(tuple(legal))
        game.apply(inp)

    EnginePlayer(game, seats=(1, 2, 3), seed=49, policy=policy,
                 apply=check_then_apply).play(400)
    assert len(checked) >= 3  # e.g. stand only, with double, with split


def test_a_refused_decision_still_names_the_legal_ones() -> None:
    from firmware.engine.rejected import Rejected

    game = Game(load_rules("blackjack"), seats=7)
    seen = []

    def refuse_first(inp: Input) -> None:
        if isinstance(inp, Decision) and game.phase != "insurance" and not seen:
            seen.append(inp)
            with pytest.raises(Rejected, match=r"rescue is not legal now \(legal: hit, stand"):
                game.apply(Decision(inp.seat, inp.hand, "rescue"))
        game.apply(inp)

    EnginePlayer(game, seats=(1,), seed=3, apply=refuse_first).play(30)
    assert seen
