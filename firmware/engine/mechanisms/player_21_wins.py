"""A player 21 beats a dealer 21; a player Blackjack beats a dealer Blackjack (Spanish 21).

Baseline §5 (the operative § 635a.7 text is not held): a standing player 21 wins against
a dealer 21 at its odds (bonus odds included), and a player Blackjack against a dealer
Blackjack is paid 3 to 2 instead of pushing. Each rule is a ``[game]`` fact of the Rules
Submission (``player_21_wins``, ``player_blackjack_wins``).

So a standing player 21 wins whatever the dealer makes (the dealer's Blackjack was
checked before the decisions): it does not keep the dealer drawing (baseline §1.10).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from firmware.engine.cards import VALUE
from firmware.engine.hand import BLACKJACK
from firmware.engine.mechanism import Mechanism, register_mechanism

if TYPE_CHECKING:
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.mechanism import RoundView, RulesInForce


@register_mechanism
class Player21Wins(Mechanism):
    name = "player-21-wins"
    game_keys: ClassVar[dict[str, Any]] = {"player_21_wins": False, "player_blackjack_wins": False}

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        self.p21 = bool(rules.game["player_21_wins"])
        self.pbj = bool(rules.game["player_blackjack_wins"])

    def hand_result(self, view: RoundView, seat: Seat, hand: Hand, result: str) -> str:
        if result != "push" or hand.total != 21:
            return result
        if hand.status == BLACKJACK:
            return "win" if self.pbj else result
        return "win" if self.p21 else result

    def fixed_without_dealer(self, view: RoundView, seat: Seat, hand: Hand) -> bool:
        if not self.p21 or hand.total != 21:
            return False
        # a dealer Blackjack is settled at the check; without a check it could still come
        return view.rules.dealer_check or VALUE[view.dealer.cards[0]] not in (1, 10)

    def paytables(self, rules: RulesInForce) -> list[dict[str, Any]]:
        rows = []
        if self.pbj:
            rows.append(["Player Blackjack against a dealer Blackjack",
                         f"player wins, {rules.blackjack_pays.numerator} to "
                         f"{rules.blackjack_pays.denominator}"])
        if self.p21:
            rows.append(["Player 21 against a dealer 21", "player wins"])
        return [{"title": "Player 21", "rows": rows}] if rows else []
