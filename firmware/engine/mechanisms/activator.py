"""The Bingo activator wager (§ 633b.28(d), (g)(1)(ii), (g)(2); baseline §3).

A mandatory wager of a fixed fraction of the Blackjack wager (the Rules Submission's
``[game] activator``, 1:5 for Bingo Blackjack), placed with it, never increased by splits
or doubles and never returned: it buys the Bingo multiplier and is collected whatever
happens. Since every wager is a multiple of ``wager_unit``, the unit must make the
fraction a whole number of cents; the Rules Submission is refused otherwise.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Final

from etgcore.errors import ConfigError
from firmware.engine.mechanism import Mechanism, WagerSpec, register_mechanism
from firmware.engine.mechanisms._odds import ratio

if TYPE_CHECKING:
    from firmware.engine.hand import Seat
    from firmware.engine.ledger import Ledger
    from firmware.engine.mechanism import RoundView, RulesInForce

WAGER: Final = "activator"


def percent(part: Fraction) -> str:
    p = part * 100
    return f"{p.numerator // p.denominator}%" if p.denominator == 1 else f"{float(p):g}%"


@register_mechanism
class Activator(Mechanism):
    name = "activator"
    wagers = (WagerSpec(
        WAGER, "BINGO ACTIVATOR", par="paired-stake-collected",
        doc="Bingo: the paired wager placed with every Blackjack wager (``activator`` of "
            "it); it only buys the draw's multiplier and is always collected."),)
    game_keys: ClassVar[dict[str, Any]] = {"activator": "1:5"}

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        self.part = ratio(rules.game["activator"], rules.file.source, "game.activator")
        if not 0 < self.part < 1:
            raise ConfigError(rules.file.source, "game.activator", "must be between 0:1 and 1:1")

    def amount(self, wager: int) -> int:
        return wager * self.part.numerator // self.part.denominator

    def check_rules(self, rules: RulesInForce, source: str) -> None:
        unit = rules.wager_unit
        if (unit * self.part.numerator) % self.part.denominator:
            step = self.part.denominator  # the Fraction is in lowest terms
            raise ConfigError(
                source, "rules.wager_unit",
                f"{unit} cents does not make the {percent(self.part)} activator a whole "
                f"number of cents (use a multiple of {step})",
            )

    def paytables(self, rules: RulesInForce) -> list[dict[str, Any]]:
        return [{
            "title": "Bingo activator wager",
            "rows": [["Placed with every Blackjack wager",
                      f"{percent(self.part)} of the Blackjack wager, never returned"]],
        }]

    def wager_refusal(self, view: RoundView, seat: Seat, amount: int) -> str | None:
        if (amount * self.part.numerator) % self.part.denominator:
            return (f"wager {amount}: the {percent(self.part)} activator would not be a whole "
                    "number of cents")
        return None

    def paired_wagers(self, view: RoundView, seat: Seat, amount: int) -> dict[str, int]:
        return {WAGER: self.amount(amount)}

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        stake = seat.side.get(WAGER, 0)
        if stake:
            ledger.lose(WAGER, stake)  # § 633b.28(g)(1)(ii), (g)(2): never returned
            if seat.hands:  # the public view reports it like any side wager's result
                first = seat.hands[0]
                first.extra = {**(first.extra or {}), WAGER: "lose"}
