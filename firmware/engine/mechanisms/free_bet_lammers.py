"""Free Bet lammers: free splits and free doubles (§ 672a.10 every subsection; baseline §4).

A pair other than 10-value cards splits without a new wager: the original Blackjack
wager moves with the first hand and a Free Bet lammer is the wager for the second
(§ 672a.10(b)(2)); a pair of 10-value cards splits only with a real wager equal to the
original (§ 672a.10(b)(1)). Resplits follow the same rule up to ``max_hands`` (at most four
hands, § 672a.10(d)). A two-card hard total in ``free_double_on`` (default 9, 10, 11, split
hands included) doubles for a lammer; any other double is a real wager. A lammer is not
money: a winning lammer is paid 1 to 1 in money, a losing or pushing one costs nothing
(the engine's ledger knows lammers).

Busted hands (§ 672a.10(c)): when a seat holds no lammer, a busted hand's wager is
collected at once (``collected``); when it holds one, the busted cards are tucked under
the original wager (``tucked``) until the round is settled or every hand of the seat has
busted, when all of them are collected together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from etgcore.errors import ConfigError
from firmware.engine.cards import VALUE
from firmware.engine.hand import BUST
from firmware.engine.mechanism import Mechanism, register_mechanism

if TYPE_CHECKING:
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.ledger import Ledger
    from firmware.engine.mechanism import RoundView, RulesInForce


def holds_lammer(seat: Seat) -> bool:
    return any(h.lammer or h.double_lammer for h in seat.hands)


def _mark(h: Hand, tucked: bool | None = None, collected: bool | None = None) -> None:
    """Note a busted hand's fate on it; the public view shows ``tucked``/``collected``."""
    extra: dict[str, Any] = {**(h.extra or {})}
    if tucked is not None:
        extra["tucked"] = tucked
    if collected is not None:
        extra["collected"] = collected
    h.extra = extra


@register_mechanism
class FreeBetLammers(Mechanism):
    name = "free-bet-lammers"
    game_keys: ClassVar[dict[str, Any]] = {
        "free_split": False,          # pairs split for a lammer (§ 672a.10(b)(2))
        "real_split_values": [10],    # pairs of these values need a real wager (b)(1)
    }

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        src = rules.file.source
        real = rules.game["real_split_values"]
        if not isinstance(real, list) or not all(isinstance(v, int) and 1 <= v <= 10
                                                 for v in real):
            raise ConfigError(src, "game.real_split_values", "must list card values 1..10")
        self.free_split = bool(rules.game["free_split"])
        self.real_values = frozenset(real)
        self.free_totals = frozenset(rules.settings.get("free_double_on", ()))

    def check_rules(self, rules: RulesInForce, source: str) -> None:
        if "free_double_on" not in rules.settings:
            raise ConfigError(source, "rules.free_double_on", "missing: declare the setting")

    def paytables(self, rules: RulesInForce) -> list[dict[str, Any]]:
        real = " or ".join(f"{v}-value" if v == 10 else str(v) for v in sorted(self.real_values))
        totals = ", ".join(str(t) for t in sorted(self.free_totals)) or "none"
        rows = []
        if self.free_split:
            rows.append([f"Free split: any pair except {real} cards",
                         "Free Bet lammer; a winning lammer pays 1 to 1"])
        rows.append([f"Free double: hard {totals} on two cards",
                     "Free Bet lammer; a winning lammer pays 1 to 1"])
        return [{"title": "Free Bet", "rows": rows}]

    # -- splits and doubles ----------------------------------------------------------
    def split_stake(self, view: RoundView, seat: Seat, hand: Hand) -> tuple[int, bool] | None:
        # Every split hand's wager is the original Blackjack wager (§ 672a.10(b)).
        free = self.free_split and VALUE[hand.cards[0]] not in self.real_values
        return seat.wager, free

    def double_stake(
        self, view: RoundView, seat: Seat, hand: Hand, times: int
    ) -> tuple[int, bool] | None:
        if len(hand.cards) == 2 and not hand.soft and hand.total in self.free_totals:
            return seat.wager, True
        return None

    # -- busted hands (§ 672a.10(c)) -------------------------------------------------
    def hand_busted(self, view: RoundView, seat: Seat, hand: Hand) -> None:
        if not holds_lammer(seat):
            hand.result = "lose"
            _mark(hand, collected=True)
        elif all(h.status == BUST for h in seat.hands):
            for h in seat.hands:  # the other hands busted as well: collect them all now
                h.result = "lose"
                _mark(h, tucked=False, collected=True)
        else:
            _mark(hand, tucked=True)

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        for h in seat.hands:
            if h.extra and h.extra.get("tucked"):
                _mark(h, tucked=False, collected=True)
