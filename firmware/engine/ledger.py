"""The settlement ledger: how one seat's wagers are paid, pushed, lost or refunded.

It holds the money arithmetic of settlement (exact fractions, remainders recorded) and
nothing of the round, so the mechanisms' contract (:mod:`firmware.engine.mechanism`) can
hand it to a mechanism without the contract importing the settlement above it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from firmware.engine.hand import Seat

#: ledger names that are Blackjack wagers for the meters
KIND_OF = {"split": "blackjack", "surrender": "blackjack"}


class Ledger:
    """Pays and collects one seat's wagers; mechanisms settle their wagers through it.

    ``returned`` is every cent going back to the seat's credits (stakes and winnings),
    ``won`` the winnings alone (what the payout limitation caps).
    """

    __slots__ = ("audit", "by_kind", "returned", "seat", "won")

    def __init__(self, seat: Seat, audit: list[tuple[Any, ...]]) -> None:
        self.seat = seat
        self.audit = audit
        self.returned = 0
        self.won = 0
        #: what went back to the seat per wager kind, for the meters (split hands and
        #: surrender refunds are Blackjack wagers)
        self.by_kind: dict[str, int] = {}

    def _back(self, what: str, cents: int) -> None:
        if cents:
            kind = KIND_OF.get(what, what)
            self.by_kind[kind] = self.by_kind.get(kind, 0) + cents

    def win(self, what: str, stake: int, odds: Fraction, lammer: bool = False) -> int:
        """A winning wager: stake back (not for a lammer, which has no money) plus odds."""
        num = stake * odds.numerator
        den = odds.denominator
        w = num // den
        rem = num - w * den
        if rem:
            self.audit.append(("remainder", self.seat.number, what, Fraction(rem, den)))
        self.won += w
        back = w if lammer else stake + w
        self.returned += back
        self._back(what, back)
        return back

    def push(self, what: str, stake: int, lammer: bool = False) -> int:
        back = 0 if lammer else stake
        self.returned += back
        self._back(what, back)
        return back

    def lose(self, what: str, stake: int) -> int:
        return 0

    def refund(self, what: str, stake: int, part: Fraction) -> int:
        """Return ``part`` of a stake (surrender), rounded down with the remainder recorded."""
        num = stake * part.numerator
        back = num // part.denominator
        rem = num - back * part.denominator
        if rem:
            rest = Fraction(rem, part.denominator)
            self.audit.append(("remainder", self.seat.number, what, rest))
        self.returned += back
        self._back(what, back)
        return back

    def bonus(self, what: str, amount: int) -> int:
        """A fixed payout with no stake of its own (e.g. an envy bonus)."""
        self.won += amount
        self.returned += amount
        self._back(what, amount)
        return amount
