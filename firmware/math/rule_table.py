"""Every key of a Rules Submission the math knows: how it is priced, or why it is not.

Why a table: the math used to map the engine's settings key by key and ignore the rest,
so a new setting (say an ``insurance`` switch) reached the engine, every test stayed
green, and the PAR sheet went on pricing the game without it. Now each ``[game]`` key
and each ``[settings]`` name is declared once, here for the base game (baseline §1) and
in :mod:`firmware.math.wagers` for the keys a mechanism brings, either as
:class:`Priced` (with the reader that turns its value into
:class:`~firmware.math.ruleset.GameRules` fields) or as :class:`NotPriced` (with the
reason the PAR sheet prints). :func:`firmware.math.ruleset.from_engine` refuses a key
that is neither (:class:`UnknownSetting`), and a test runs over every key of every
Rules Submission.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from etgcore.errors import UserError
from firmware.math.errors import MathError

#: a reader: (the key's value in force, every value in force) -> GameRules fields
Reader = Callable[[Any, Mapping[str, Any]], dict[str, Any]]


class UnknownSetting(MathError, UserError):
    """A Rules Submission key the math neither prices nor declares it does not price:
    bad input of a file (one line, exit 2 at the command line)."""


@dataclass(frozen=True)
class Axis:
    """A setting every allowed value of which is a configuration of the PAR sheet
    (:mod:`firmware.math.par.configurations`): its place among the axes (the sheet's
    order of configurations) and its label in a configuration's name."""

    rank: int
    label: Callable[[Any], str]


@dataclass(frozen=True)
class Priced:
    """A key the figures depend on. ``read`` is None when another key's reader reads it
    (``with_key`` names it); ``axis`` when the sheet covers its every allowed value."""

    read: Reader | None
    with_key: str = ""
    axis: Axis | None = None
    #: set the GameRules field of the key's own name to ``conv(value)`` (see :meth:`same`)
    conv: Callable[[Any], Any] | None = None

    @classmethod
    def same(cls, conv: Callable[[Any], Any]) -> Priced:
        """A key read into the GameRules field of its own name (``conv(value)``; None: no
        change), so that the table need not spell the name twice."""
        return cls(None, conv=conv)

    def fields(self, key: str, value: Any, values: Mapping[str, Any]) -> dict[str, Any]:
        """The GameRules fields ``value`` of ``key`` sets."""
        if self.conv is not None:
            return {} if value is None else {key: self.conv(value)}
        return self.read(value, values) if self.read is not None else {}


@dataclass(frozen=True)
class NotPriced:
    """A key the figures do not depend on (or do not price yet), with the reason."""

    reason: str


Entry = Priced | NotPriced


def ratio(text: str | Fraction | int | float) -> Fraction:
    """``"3:2"`` -> Fraction(3, 2); a number is taken as is."""
    if isinstance(text, str):
        if ":" in text:
            a, b = text.split(":", 1)
            return Fraction(int(a), int(b))
        return Fraction(text)
    return Fraction(text)


def field(name: str, conv: Callable[[Any], Any]) -> Reader:
    """A reader that sets GameRules field ``name`` to ``conv(value)`` (None: no change)."""
    return lambda x, v: {} if x is None else {name: conv(x)}


def ints(x: Any) -> tuple[int, ...]:
    return tuple(int(i) for i in x)


def _decks_label(n: Any) -> str:
    return f"{n} deck{'s' if n != 1 else ''}"


def _yes(x: Any) -> bool:
    return bool(x)


MONEY_LIMIT = ("a money limit of the table: every figure is per unit wagered, whatever the "
               "amount")

#: the base game's keys (baseline §1; firmware/engine/rules.py GAME_KEYS and CORE_SETTINGS).
#: The order of the axes here is the order of a PAR sheet's configurations.
BASE: dict[str, Entry] = {
    # [game]
    "variant": Priced(field("variant", str)),
    "title": NotPriced("the game's name on the layout"),
    "regulation": NotPriced("the regulation the game is dealt under, a reference"),
    "max_seats": NotPriced("every figure is per seat: the other seats' cards are unseen, "
                           "which leaves each seat's expectation unchanged"),
    "deck": Priced(field("deck", str)),
    "insurance_pays": Priced(field("insurance_pays", ratio)),
    "mechanisms": Priced(None, with_key="each mechanism's own keys (firmware/math/wagers.py)"),
    "hitting": Priced(field("hitting", _yes)),
    "double_times": Priced(field("double_times", ints)),
    "double_cards": Priced(field("double_cards", str)),
    "split_any_initial": Priced(field("split_any_initial", _yes)),
    "split_aces_one_card": Priced(field("split_aces_one_card", _yes)),
    "surrender_refund": Priced(field("surrender_refund", ratio)),
    "dealer_check": Priced(field("dealer_check", _yes)),
    "payout_limit_exempt": NotPriced("whether the table's payout limit applies to the game; "
                                     "the figures are uncapped (see max_payout_per_round)"),
    "auto_stand_21": Priced(field("auto_stand_21", _yes)),
    # [settings]
    "decks": Priced(field("decks", int), axis=Axis(1, _decks_label)),
    "dealer_hits_soft_17": Priced(field("dealer_hits_soft_17", _yes),
                                  axis=Axis(2, lambda x: "H17" if x else "S17")),
    "blackjack_pays": Priced(field("blackjack_pays", ratio),
                             axis=Axis(4, lambda x: f"Blackjack pays {x}")),
    "burn_cards": NotPriced("burned cards are unseen: every round's expectation is that of "
                            "the full shoe"),
    "double_on": Priced(field("double_on", str)),
    "double_after_split": Priced(field("double_after_split", _yes)),
    "max_hands": Priced(field("max_hands", int)),
    "resplit_aces": Priced(field("resplit_aces", _yes)),
    "late_surrender": Priced(field("late_surrender", _yes)),
    "max_payout_per_round": NotPriced("the payout limit per round: not priced, the figures "
                                      "are uncapped (a limit lowers the return only on the "
                                      "rare rounds paying above it)"),
    "wager_unit": NotPriced(MONEY_LIMIT),
    "min_wager": NotPriced(MONEY_LIMIT),
    "max_wager": NotPriced(MONEY_LIMIT),
}


__all__ = ["BASE", "Axis", "Entry", "NotPriced", "Priced", "Reader", "UnknownSetting", "field",
           "ints", "ratio"]
