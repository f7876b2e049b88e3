"""The optional Push 22 wager of Free Bet Blackjack (§ 672a.2(b)(4); baseline §4).

Offered only when the Rules Submission setting ``push22`` is on (off by default); it
wins ``push22_pays`` (default 11 to 1) when the dealer's final hand totals 22 and loses
otherwise (a dealer Blackjack included). While a seat holds it, the dealer's final total
matters, so the dealer draws even when every main wager is already decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from firmware.engine.mechanism import Mechanism, WagerSpec, register_mechanism
from firmware.engine.settings import odds_text

if TYPE_CHECKING:
    from firmware.engine.hand import Seat
    from firmware.engine.ledger import Ledger
    from firmware.engine.mechanism import RoundView, RulesInForce

WAGER: Final = "push22"


@register_mechanism
class Push22(Mechanism):
    name = "push-22"
    wagers = (WagerSpec(
        WAGER, "PUSH 22", optional=True, par="dealer-total-22",
        doc="Free Bet (setting ``push22``): the optional wager that the dealer's hand "
            "totals 22, paid at ``push22_pays``."),)

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        self.offered = bool(rules.settings.get("push22", False))
        self.pays = rules.settings.get("push22_pays")
        # Not offered: no betting area, no wager name in the views (§ 672a.2(b)(4)).
        self.wager_names = (WAGER,) if self.offered else ()
        self.optional_wagers = self.wager_names

    def paytables(self, rules: RulesInForce) -> list[dict[str, Any]]:
        if not self.offered or self.pays is None:
            return []
        return [{"title": "Push 22 wager",
                 "rows": [["Dealer's hand totals 22", odds_text(self.pays)]]}]

    def side_wager_refusal(self, view: RoundView, seat: Seat, name: str, amount: int) -> str | None:
        rules = view.rules
        if amount and not rules.min_wager <= amount <= rules.max_wager:
            return f"Push 22 wager {amount} is outside {rules.min_wager}..{rules.max_wager}"
        return None

    def dealer_needed(self, view: RoundView) -> bool:
        return any(s.side.get(WAGER) for s in view.players)

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        stake = seat.side.get(WAGER, 0)
        if not stake:
            return
        if view.dealer.total == 22 and self.pays is not None:
            ledger.win(WAGER, stake, self.pays)
            outcome = "win"
        else:
            ledger.lose(WAGER, stake)
            outcome = "lose"
        if seat.hands:  # the public view reports it like any side wager's result
            first = seat.hands[0]
            first.extra = {**(first.extra or {}), WAGER: outcome}
