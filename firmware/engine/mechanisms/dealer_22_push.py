"""A dealer total of 22 pushes every main wager still standing (Free Bet; baseline §4).

§ 672a.2(b)(3)(iv): "Blackjack Wagers will push if the dealer's hand has a total point
count of 22". A player Blackjack has already been paid 3 to 2 before the dealer plays and
is not affected; a busted hand has already lost. A Double Down wager (or lammer) riding
with a standing hand pushes with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from firmware.engine.mechanism import Mechanism, register_mechanism

if TYPE_CHECKING:
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.mechanism import RoundView, RulesInForce


@register_mechanism
class Dealer22Push(Mechanism):
    name = "dealer-22-push"
    game_keys: ClassVar[dict[str, Any]] = {"dealer_22_pushes": False}

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        self.on = bool(rules.game["dealer_22_pushes"])

    def hand_result(self, view: RoundView, seat: Seat, hand: Hand, result: str) -> str:
        if self.on and result == "win" and view.dealer.total == 22:
            return "push"
        return result
