"""What the math knows of each mechanism (wager) the engine can load, keyed by its name.

One entry per mechanism of ``firmware/engine/mechanisms/``: the Rules Submission keys it
brings (``[game]`` keys it declares and the ``[settings]`` it reads), each priced or
declared not priced like the base game's (:mod:`firmware.math.rule_table`), the PAR
sheet's line keys of the wager, and whether the math prices the wager at all. A
mechanism with no entry here is refused by :func:`firmware.math.ruleset.from_engine`
(a new wager is priced, or declared "not priced" with the reason the PAR sheet prints;
tests/math/test_math_rule_model.py lists the wagers the math does not price).

For now the table is keyed by the mechanism's name; the calculations themselves still
branch on the :class:`~firmware.math.ruleset.GameRules` fields these readers set.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from etgcore.errors import UserError
from firmware.math.paytable import PaytableLine
from firmware.math.rule_table import Axis, Entry, NotPriced, Priced, ints, ratio
from firmware.math.rule_table import field as setter

BINGO_TARGETS: tuple[int, ...] = tuple(range(12, 22))  # § 633b.28(e)(1)
BINGO_MULTIPLIERS: tuple[int, ...] = (2, 5, 10, 25, 50, 100)  # § 633b.28(e)(2)


@dataclass(frozen=True)
class SpanishBonuses:
    """§ 635a.12(b)/(c): odds of the bonus hands on a winning, undoubled Spanish 21 wager."""

    five_card_21: Fraction = Fraction(3, 2)
    six_card_21: Fraction = Fraction(2)
    seven_card_21: Fraction = Fraction(3)
    mixed_678: Fraction = Fraction(3, 2)
    suited_678: Fraction = Fraction(2)
    spades_678: Fraction = Fraction(3)
    mixed_777: Fraction = Fraction(3, 2)
    suited_777: Fraction = Fraction(2)
    spades_777: Fraction = Fraction(3)
    #: Super bonus on suited 7-7-7 against a dealer 7 up, in units of the original wager
    #: at the reference wager the PAR sheet states (0 = not counted).
    super_bonus_units: Fraction = Fraction(0)
    #: Envy bonus paid to each other seat, in units of the reference wager, times the
    #: number of other seats assumed (0 = not counted).
    envy_units: Fraction = Fraction(0)


@dataclass(frozen=True)
class DealerTotalWager:
    """An optional wager settled on the dealer's final total alone, priced per unit of its
    own stake from the probability of that total, which every calculation of a hitting
    game already holds (Push 22: the dealer's 22). The calculations and the PAR sheet
    collect these from :data:`WAGERS` instead of naming the wager."""

    #: the wager's key in the figures (``Analysis.optional``, ``PaytableLine.wager``)
    key: str
    #: the PAR sheet's caption of its lines
    title: str
    #: the name of the GameRules field holding its odds (None there: not in the rules)
    odds_field: str
    #: the paytable line of a win, given the odds as the sheet prints them
    win_label: str

    def odds(self, rules: Any) -> Fraction | None:
        odds: Fraction | None = getattr(rules, self.odds_field)
        return odds

    def value(self, odds: Fraction, p: float) -> float:
        """Expected net per unit staked: ``odds`` to 1 with probability ``p``, else lost."""
        return float(odds) * p - (1 - p)

    def lines(self, odds: Fraction, p: float, odds_text: str) -> list[PaytableLine]:
        return [PaytableLine(self.key, self.win_label.format(odds=odds_text), p, float(odds),
                             1.0),
                PaytableLine(self.key, "Loss", 1 - p, -1.0, 1.0)]

    def sd(self, odds: Fraction, p: float) -> float:
        return (float(odds) + 1) * math.sqrt(p * (1 - p))


@dataclass(frozen=True)
class WagerMath:
    """The math of one mechanism: its keys, its PAR lines, whether it is priced."""

    keys: dict[str, Entry]
    #: the PAR sheet's line keys (``PaytableLine.wager``) of the mechanism's wager, if any
    par_lines: tuple[str, ...] = ()
    #: None: priced; else the reason the PAR sheet prints beside "not priced"
    not_priced: str | None = None
    #: an optional wager settled on the dealer's total (priced by every calculation)
    dealer_total: DealerTotalWager | None = None
    notes: tuple[str, ...] = field(default=())


def _bingo_lanes(key: str, lanes: tuple[int, ...]) -> Any:
    def read(x: Any, v: Mapping[str, Any]) -> dict[str, Any]:
        if tuple(int(i) for i in x) != lanes:
            raise UserError(f"{key} {list(x)}: the math knows § 633b.28(e)'s "
                            f"{list(lanes)} only")
        return {}

    return read


def _weights(keys: tuple[int, ...]) -> Any:
    def conv(x: Any) -> tuple[int, ...]:
        if isinstance(x, Mapping):
            return tuple(int(x.get(str(k), x.get(k, 0))) for k in keys)
        return tuple(int(i) for i in x)

    return conv


def _free_double_totals(x: Any) -> tuple[int, ...]:
    if isinstance(x, str):
        if "-" in x:
            lo, hi = x.split("-", 1)
            return tuple(range(int(lo), int(hi) + 1))
        return tuple(int(t) for t in x.replace(",", " ").split())
    return tuple(int(t) for t in x)


def _bob_paytable(x: Any, v: Mapping[str, Any]) -> dict[str, Any]:
    if not x:
        return {}
    col = int(v.get("paytable", 1)) - 1
    return {"bob_paytable": tuple((str(row["line"]), ratio(row["odds"][col])) for row in x)}


#: the Blackjack wager (cents) the Spanish 21 super bonus, a fixed amount, is priced at
REFERENCE_WAGER = 1000


def _spanish(x: Any, v: Mapping[str, Any]) -> dict[str, Any]:
    """§ 635a.12(b) odds and the (c) super bonus per unit of the reference wager."""
    if not x:
        return {}
    wager = REFERENCE_WAGER
    odds = {k: ratio(o) for k, o in dict(x).items()}
    sb = dict(v.get("super_bonus") or {})
    amount = 0
    if sb and sb.get("from", 0) <= wager < sb.get("below", 0):
        amount = int(sb.get("pays", 0))
    elif sb and wager >= sb.get("below", 0):
        amount = int(v.get("super_bonus_25_or_more", 0))
    fields = {k: odds[k] for k in odds if k in SpanishBonuses.__dataclass_fields__}
    return {"spanish_bonuses": SpanishBonuses(**fields,
                                              super_bonus_units=Fraction(amount, wager))}


def _envy(x: Any, v: Mapping[str, Any]) -> dict[str, Any]:
    if x and v.get("bonus_odds"):
        return {"envy_cents": int(v.get("envy_bonus_cents", 0))}
    return {}


_BONUS = "bonus_odds"

WAGERS: dict[str, WagerMath] = {
    "activator": WagerMath({"activator": Priced(setter("activator", ratio))},
                           par_lines=("activator",)),
    "bingo-multiplier": WagerMath({
        "bingo_targets": Priced(_bingo_lanes("bingo_targets", BINGO_TARGETS)),
        "bingo_multipliers": Priced(_bingo_lanes("bingo_multipliers", BINGO_MULTIPLIERS)),
        "target_weights": Priced(setter("target_weights", _weights(BINGO_TARGETS))),
        "multiplier_weights": Priced(setter("multiplier_weights",
                                            _weights(BINGO_MULTIPLIERS))),
        "multiplier_on_double": Priced(setter("multiplier_on_double", bool)),
    }),
    "blackjack-or-bust": WagerMath({
        "blackjack_or_bust_paytables": Priced(_bob_paytable),
        "paytable": Priced(None, with_key="blackjack_or_bust_paytables",
                           axis=Axis(3, lambda x: f"paytable {x}")),
    }, par_lines=("blackjack_or_bust",)),
    "dealer-22-push": WagerMath({"dealer_22_pushes": Priced(setter("dealer_22_pushes", bool))}),
    "free-bet-lammers": WagerMath({
        "free_split": Priced(setter("free_split", bool)),
        "real_split_values": Priced(setter("real_split_values", ints)),
        "free_double_on": Priced(setter("free_double_on", _free_double_totals)),
    }),
    "push-22": WagerMath({
        "push22": NotPriced("whether the optional Push 22 wager is offered: the sheet prices "
                            "the wager per unit of its own stake either way"),
        "push22_pays": Priced(setter("push22_pays", ratio)),
    }, par_lines=("push22",), dealer_total=DealerTotalWager(
        "push22", "Push 22 wager (optional, per unit of its own stake)", "push22_pays",
        "Dealer 22 ({odds})")),
    "player-21-wins": WagerMath({
        "player_21_wins": Priced(setter("player_21_wins", bool)),
        "player_blackjack_wins": Priced(setter("player_blackjack_wins", bool)),
    }),
    "rescue": WagerMath({"rescue": Priced(setter("rescue", bool))}),
    "spanish-bonus": WagerMath({
        _BONUS: Priced(_spanish),
        "super_bonus": Priced(None, with_key=_BONUS),
        "super_bonus_25_or_more": Priced(None, with_key=_BONUS),
        "envy_bonus": Priced(_envy),
        "envy_bonus_cents": Priced(None, with_key="envy_bonus"),
    }),
}


def dealer_total_wagers(rules: Any) -> list[tuple[DealerTotalWager, Fraction]]:
    """The optional dealer-total wagers ``rules`` (a GameRules) prices, with their odds."""
    out = []
    for w in WAGERS.values():
        odds = w.dealer_total.odds(rules) if w.dealer_total is not None else None
        if w.dealer_total is not None and odds is not None:
            out.append((w.dealer_total, odds))
    return out


def wager_titles() -> dict[str, str]:
    """PAR line key -> the sheet's caption, for the wagers whose entry names one."""
    return {w.dealer_total.key: w.dealer_total.title for w in WAGERS.values()
            if w.dealer_total is not None}


def not_priced_wagers() -> dict[str, str]:
    """Mechanism name -> why the math does not price its wager (the PAR sheet prints it)."""
    return {n: w.not_priced for n, w in WAGERS.items() if w.not_priced is not None}


__all__ = ["BINGO_MULTIPLIERS", "BINGO_TARGETS", "REFERENCE_WAGER", "WAGERS", "DealerTotalWager",
           "SpanishBonuses", "WagerMath", "dealer_total_wagers", "not_priced_wagers",
           "wager_titles"]
