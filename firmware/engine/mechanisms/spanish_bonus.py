"""Spanish 21 bonus payouts, super bonus and envy bonus (§ 635a.12(b), (c); baseline §5).

(b): a winning Spanish 21 wager on a bonus hand is paid the hand's bonus odds (5, 6, 7+
card 21s; exactly three cards 6-7-8 or 7-7-7, mixed, suited or spades), but 1 to 1 when
the hand carries a Double Down wager, and a Double Down wager itself never gets them
(§ 635a.10(c)). (c): a winning hand of three 7s of one suit against a dealer 7 up adds a
fixed payout by the original wager: $1,000 from $5 to under $25 (the regulation's text),
and the Rules Submission's ``super_bonus_25_or_more`` (default $5,000) at $25 or more
(baseline §5); below $5 nothing. With ``envy_bonus`` on (default), every other seat with a
wager in the round receives the envy bonus ($50) per super bonus paid. The odds and
amounts are ``[game]`` facts of the Rules Submission.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar

from etgcore.errors import ConfigError
from etgcore.money import dollars
from firmware.engine.cards import RANK, SUIT, VALUE
from firmware.engine.hand import BUST, RESCUED, SURRENDERED
from firmware.engine.mechanism import Mechanism, register_mechanism
from firmware.engine.mechanisms._odds import odds_table
from firmware.engine.settings import odds_text

if TYPE_CHECKING:
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.ledger import Ledger
    from firmware.engine.mechanism import RoundView, RulesInForce

BONUS_HANDS = ("five_card_21", "six_card_21", "seven_card_21", "mixed_678", "suited_678",
               "spades_678", "mixed_777", "suited_777", "spades_777")
TEXT = {
    "five_card_21": "Five cards totaling 21", "six_card_21": "Six cards totaling 21",
    "seven_card_21": "Seven or more cards totaling 21",
    "mixed_678": "6-7-8 of mixed suits", "suited_678": "6-7-8 of the same suit",
    "spades_678": "6-7-8 of spades", "mixed_777": "7-7-7 of mixed suits",
    "suited_777": "7-7-7 of the same suit", "spades_777": "7-7-7 of spades",
}
_SEVEN = 6  # rank index of a 7
_SPADES = 0


def bonus_hand(hand: Hand) -> str | None:
    """The § 635a.12(b) hand ``hand`` is, if any (suit and count, not whether it won)."""
    cards = hand.cards
    n = len(cards)
    if n == 3:
        values = sorted(VALUE[c] for c in cards)
        suits = {SUIT[c] for c in cards}
        kind = "678" if values == [6, 7, 8] else "777" if values == [7, 7, 7] else None
        if kind is None:
            return None
        if len(suits) > 1:
            return f"mixed_{kind}"
        return f"spades_{kind}" if suits == {_SPADES} else f"suited_{kind}"
    if n >= 5 and hand.total == 21:
        return "five_card_21" if n == 5 else "six_card_21" if n == 6 else "seven_card_21"
    return None


def is_suited_777(hand: Hand) -> bool:
    c = hand.cards
    return len(c) == 3 and all(RANK[x] == _SEVEN for x in c) and len({SUIT[x] for x in c}) == 1


def _wins(view: RoundView, seat: Seat, hand: Hand, dealer: int) -> bool:
    """Whether a standing 21 wins, also before its seat is settled (for the envy bonus).

    Against a dealer 7 up the dealer cannot hold Blackjack; a dealer 21 is beaten only
    where the game's hand_result rules say so (player 21 wins), else it pushes.
    """
    if hand.result is not None:
        return hand.result == "win"
    if dealer != 21:
        return True
    return view.hand_result(seat, hand, "push") == "win"


@register_mechanism
class SpanishBonus(Mechanism):
    name = "spanish-bonus"
    wager_names = ()
    game_keys: ClassVar[dict[str, Any]] = {
        "bonus_odds": {},
        "super_bonus": {},           # {from = cents, below = cents, pays = cents}
        "envy_bonus_cents": 0,
    }

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        src = rules.file.source
        self.odds = odds_table(rules.game["bonus_odds"], BONUS_HANDS, src, "game.bonus_odds")
        sb = rules.game["super_bonus"]
        if not isinstance(sb, Mapping) or set(sb) != {"from", "below", "pays"} or not all(
            isinstance(v, int) and v >= 0 for v in sb.values()
        ):
            raise ConfigError(src, "game.super_bonus",
                              "must be {from = cents, below = cents, pays = cents}")
        self.low_from, self.low_below, self.low_pays = sb["from"], sb["below"], sb["pays"]
        self.high_pays = int(rules.settings.get("super_bonus_25_or_more", 0))
        envy = rules.game["envy_bonus_cents"]
        if not isinstance(envy, int) or envy < 0:
            raise ConfigError(src, "game.envy_bonus_cents", "must be cents >= 0")
        self.envy = envy if rules.settings.get("envy_bonus", False) else 0

    def check_rules(self, rules: RulesInForce, source: str) -> None:
        for key in ("super_bonus_25_or_more", "envy_bonus"):
            if key not in rules.settings:
                raise ConfigError(source, f"rules.{key}", "missing: declare the setting")

    def paytables(self, rules: RulesInForce) -> list[dict[str, Any]]:
        rows = [[TEXT[h], odds_text(self.odds[h])] for h in (
            "mixed_678", "suited_678", "spades_678", "mixed_777", "suited_777", "spades_777",
            "five_card_21", "six_card_21", "seven_card_21")]
        rows.append(["Any bonus hand with a Double Down wager", "1 to 1"])
        out = [{"title": "Spanish 21 bonus payouts", "rows": rows}]
        sup = [[f"Suited 7-7-7 against a dealer 7, wager {dollars(self.low_from)} to under "
                f"{dollars(self.low_below)}", f"{dollars(self.low_pays)} more"],
               [f"Suited 7-7-7 against a dealer 7, wager {dollars(self.low_below)} or more",
                f"{dollars(self.high_pays)} more"]]
        if self.envy:
            sup.append(["Envy bonus: every other player with a wager",
                        f"{dollars(self.envy)} per super bonus"])
        out.append({"title": "Super bonus", "rows": sup})
        return out

    # -- (b) bonus odds --------------------------------------------------------------
    def hand_odds(
        self, view: RoundView, seat: Seat, hand: Hand, part: str, odds: Fraction
    ) -> Fraction:
        if part != "wager" or hand.double or hand.double_lammer:
            return odds  # § 635a.10(c), § 635a.12(b): 1 to 1 with a Double Down wager
        kind = bonus_hand(hand)
        if kind is None:
            return odds
        return max(odds, self.odds[kind])

    # -- (c) super bonus and the envy bonus ------------------------------------------
    def super_amount(self, wager: int) -> int:
        if wager >= self.low_below:
            return self.high_pays
        return self.low_pays if wager >= self.low_from else 0

    def _super_hands(self, view: RoundView, seat: Seat) -> int:
        """Super bonus hands of ``seat`` this round (a winning suited 7-7-7, no double)."""
        up = view.dealer.cards[0] if view.dealer.cards else None
        if up is None or RANK[up] != _SEVEN or not self.super_amount(seat.wager):
            return 0
        d = view.dealer.total
        n = 0
        for h in seat.hands:
            if (h.status in (BUST, RESCUED, SURRENDERED) or h.double or h.double_lammer
                    or not is_suited_777(h)):
                continue
            if _wins(view, seat, h, d):
                n += 1
        return n

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        own = self._super_hands(view, seat)
        if own:
            amount = self.super_amount(seat.wager)
            for h in seat.hands:
                if h.result == "win" and is_suited_777(h) and not (h.double or
                                                                  h.double_lammer):
                    ledger.bonus("super_bonus", amount)
                    h.extra = {**(h.extra or {}), "super_bonus": amount}
        if self.envy:
            others = sum(self._super_hands(view, s) for s in view.players if s is not seat)
            if others:
                ledger.bonus("envy_bonus", self.envy * others)
