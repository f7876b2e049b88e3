"""Rescue after a double down (§ 635a.10(d); baseline §5).

After the Double Down wager's one card, when the hand is not over 21, the player may
"rescue": take back the Double Down wager and forfeit the original wager. The doubled
hand therefore keeps its turn for one more decision (stand or rescue), also when the card
made exactly 21: § 635a.10(d) allows the rescue "as long as the additional card does not
result in the hand having a total point count in excess of 21", and the regulation's own
words prevail over the baseline's hand that stands by itself at 21 (§1.6). A rescued 21
can only lose (a player 21 wins in Spanish 21), so the strategy never takes it; the
player may. The panel's SURRENDER button means rescue then (the controller maps it).
Settlement of a rescued hand is the engine's: the original wager lost, the Double Down
wager returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from firmware.engine.hand import RESCUED
from firmware.engine.mechanism import Mechanism, register_mechanism

if TYPE_CHECKING:
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.mechanism import RoundView, RulesInForce

ACTION = "rescue"


@register_mechanism
class Rescue(Mechanism):
    name = "rescue"
    game_keys: ClassVar[dict[str, Any]] = {"rescue": False}

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        self.on = bool(rules.game["rescue"])

    def keeps_turn_after_double(self, view: RoundView, seat: Seat, hand: Hand) -> bool:
        # Called only when the double's card left the hand at 21 or less: § 635a.10(d)
        # allows the rescue on every such total, 21 included (see the module docstring).
        return self.on and not hand.double_lammer

    def adjust_legal(self, view: RoundView, seat: Seat, hand: Hand, legal: list[str]) -> None:
        if view.post_double and self.on:
            legal.append(ACTION)

    def custom_action(self, view: RoundView, seat: Seat, hand: Hand, action: str) -> bool:
        if action != ACTION:
            return False
        hand.status = RESCUED
        return True
