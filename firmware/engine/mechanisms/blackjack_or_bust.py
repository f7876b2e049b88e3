"""The Blackjack or Bust wager of Split to Double Blackjack (§ 633b.26(d), (f), (i)).

A mandatory wager equal to the Blackjack wager, placed with it and never split or
doubled. It wins at the odds of the chosen paytable when the player has a Blackjack
(even against a dealer Blackjack) or when the dealer busts; it loses when any of the
seat's hands busts, whatever the dealer does, and otherwise (baseline §2). A hand pays
only its best line. The paytables live in the Rules Submission (``[game]
blackjack_or_bust_paytables``), the certificate holder's choice in ``paytable``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, Final

from etgcore.errors import ConfigError
from firmware.engine.cards import RANK, SUIT, VALUE
from firmware.engine.hand import BLACKJACK, BUST, SURRENDERED, Hand, Seat
from firmware.engine.mechanism import Mechanism, WagerSpec, register_mechanism
from firmware.engine.mechanisms._odds import ratio
from firmware.engine.settings import odds_text

if TYPE_CHECKING:
    from firmware.engine.ledger import Ledger
    from firmware.engine.mechanism import RoundView, RulesInForce

WAGER: Final = "blackjack_or_bust"
#: the hand lines of § 633b.26(i), as the rules file names them
LINES = ("ace-spades-jack-clubs-or-spades", "suited", "blackjack", "dealer-bust")
_ACE, _JACK, _SPADES, _CLUBS = 0, 10, 0, 3


def line_holds(line: str, hand: Hand, dealer_bust: bool) -> bool:
    """Whether ``hand`` (the seat's first hand) and the dealer make ``line``."""
    if line == "dealer-bust":
        return dealer_bust
    if hand.status != BLACKJACK:
        return False
    if line == "blackjack":
        return True
    a, b = hand.cards
    if line == "suited":
        return SUIT[a] == SUIT[b]
    ace, ten = (a, b) if VALUE[a] == 1 else (b, a)
    return (RANK[ace], SUIT[ace]) == (_ACE, _SPADES) and RANK[ten] == _JACK and SUIT[ten] in (
        _SPADES, _CLUBS,
    )


@register_mechanism
class BlackjackOrBust(Mechanism):
    name = "blackjack-or-bust"
    wagers = (WagerSpec(
        WAGER, "BLACKJACK OR BUST", par="split-to-double-bust-paytable",
        doc="Split to Double: the paired wager equal to the Blackjack wager; it pays the "
            "paytable line of the player's Blackjack or the dealer's bust."),)
    game_keys: ClassVar[dict[str, Any]] = {"blackjack_or_bust_paytables": []}

    def __init__(self, rules: RulesInForce) -> None:
        super().__init__(rules)
        src = rules.file.source
        key = "game.blackjack_or_bust_paytables"
        raw = rules.game["blackjack_or_bust_paytables"]
        if not isinstance(raw, list) or not raw:
            raise ConfigError(src, key, "must list the paytable lines {line, hand, odds}")
        self.lines: list[tuple[str, str, tuple[Fraction, ...]]] = []
        for i, row in enumerate(raw):
            where = f"{key}[{i}]"
            if not isinstance(row, Mapping) or set(row) != {"line", "hand", "odds"}:
                raise ConfigError(src, where, "must be {line = ..., hand = ..., odds = [...]}")
            if row["line"] not in LINES:
                raise ConfigError(src, f"{where}.line", f"must be one of {', '.join(LINES)}")
            odds = row["odds"]
            if not isinstance(odds, list) or not odds:
                raise ConfigError(src, f"{where}.odds", "must list the odds of each paytable")
            self.lines.append((str(row["line"]), str(row["hand"]), tuple(
                ratio(o, src, f"{where}.odds[{j}]") for j, o in enumerate(odds)
            )))
        self.tables = min(len(o) for _, _, o in self.lines)

    def check_rules(self, rules: RulesInForce, source: str) -> None:
        n = rules.settings.get("paytable")
        if not isinstance(n, int) or not 1 <= n <= self.tables:
            raise ConfigError(source, "rules.paytable", f"must be 1..{self.tables}, got {n!r}")

    def odds(self, rules: RulesInForce) -> list[tuple[str, str, Fraction]]:
        """(line, hand text, odds) of the paytable in force, best line first."""
        n = int(rules.settings["paytable"])
        return [(line, hand, odds[n - 1]) for line, hand, odds in self.lines]

    def paytables(self, rules: RulesInForce) -> list[dict[str, Any]]:
        n = rules.settings["paytable"]
        return [{
            "title": f"Blackjack or Bust wager (Paytable {n})",
            "rows": [[hand, odds_text(o)] for _, hand, o in self.odds(rules)],
        }]

    def paired_wagers(self, view: RoundView, seat: Seat, amount: int) -> dict[str, int]:
        return {WAGER: amount}

    def dealer_needed(self, view: RoundView) -> bool:
        """§ 633b.26(f)(1): the wager wins on a dealer bust, so the dealer draws while a
        seat's wager is still alive (no hand busted, not surrendered) and a dealer bust
        would pay it more than a line it already holds (a Blackjack line)."""
        lines = self.odds(view.rules)
        bust = max((o for line, _, o in lines if line == "dealer-bust"), default=None)
        if bust is None:
            return False
        for seat in view.players:
            if not seat.side.get(WAGER) or not seat.hands:
                continue
            first = seat.hands[0]
            if first.status == SURRENDERED or any(h.status == BUST for h in seat.hands):
                continue
            held = [o for line, _, o in lines
                    if line != "dealer-bust" and line_holds(line, first, False)]
            if not held or bust > max(held):
                return True
        return False

    def settle_seat(self, view: RoundView, seat: Seat, ledger: Ledger) -> None:
        stake = seat.side.get(WAGER, 0)
        if not stake or not seat.hands:
            return
        first = seat.hands[0]
        best: tuple[str, Fraction] | None = None
        if first.status != SURRENDERED and not any(h.status == BUST for h in seat.hands):
            dealer_bust = view.hole_revealed and view.dealer.total > 21
            for line, _, odds in self.odds(view.rules):
                if line_holds(line, first, dealer_bust) and (best is None or odds > best[1]):
                    best = (line, odds)
        if best is None:
            ledger.lose(WAGER, stake)
            outcome = "lose"
        else:
            ledger.win(WAGER, stake, best[1])
            outcome = best[0]
        first.extra = {**(first.extra or {}), WAGER: outcome}
