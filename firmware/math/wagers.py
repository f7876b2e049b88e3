"""What the math knows of the mechanisms (wagers) the engine can load, reached through
each mechanism's own declaration, never by its name.

Two tables, neither keyed by a wager's or a mechanism's name:

- :data:`PRICERS`, keyed by a **PAR hook**: the name of a calculation, which a wager's
  declaration (``WagerSpec.par`` in its mechanism module) names. The math prices a
  wager by the calculation its declaration names, and files its figures (``Analysis``'s
  wagers, ``PaytableLine.wager``, the sheet's lines) under the wager's declared
  ``name``: :func:`wager_key` reads it from the rules in force
  (:attr:`~firmware.math.ruleset.GameRules.wagers`). A new wager priced like an existing
  one (say a second dealer-total wager) names the same hook and touches no math file;
  one priced a new way registers its calculation here. ``WagerSpec.par`` None: the math
  does not price it yet, and the PAR sheet says so.
- :data:`RULE_CHANGES`: the Rules Submission keys a mechanism that changes the play
  brings (``Mechanism.game_keys``), each priced or declared not priced like the base
  game's (:mod:`firmware.math.rule_table`). A mechanism's keys are found from its
  declared ``game_keys`` and its wagers' hooks (:func:`mechanism_keys`).

A mechanism that declares neither a key the math knows nor a wager is refused by
:func:`firmware.math.ruleset.from_engine`: the math cannot tell what it changes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from etgcore.errors import UserError
from firmware.math.errors import MathError
from firmware.math.paytable import PaytableLine
from firmware.math.rule_table import Axis, Entry, NotPriced, Priced, UnknownSetting, ints, ratio
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
    collect these from the declared wagers of the rules in force
    (:func:`dealer_total_wagers`) instead of naming the wager."""

    #: the name of the GameRules field holding its odds (None there: not in the rules)
    odds_field: str
    #: the paytable line of a win, given the odds as the sheet prints them
    win_label: str
    #: the wager's key in the figures (``Analysis.optional``, ``PaytableLine.wager``):
    #: the declared wager's name, set by :func:`dealer_total_wagers`
    key: str = ""

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
class Pricer:
    """One calculation the math prices a wager by, registered under the PAR hook a
    wager's declaration names: the PAR sheet's caption of the wager's lines, the Rules
    Submission keys the wager brings, and (a dealer-total wager) its parameters."""

    title: str
    keys: dict[str, Entry] = field(default_factory=dict)
    dealer_total: DealerTotalWager | None = None


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

#: The PAR hooks (``WagerSpec.par``) the math has a calculation for. Each names how the
#: wager is priced, not the wager: the game-value calculations compute these three.
#: A required stake of a fixed part of the Blackjack wager, always collected (its value
#: is minus its stake; the game's value holds what it buys): Bingo's activator.
PAIRED_STAKE = "paired-stake-collected"
#: Split to Double's required side paytable on the player's Blackjack and the dealer's
#: bust, valued with the main wager by the Split to Double calculation.
BUST_PAYTABLE = "split-to-double-bust-paytable"
#: An optional wager that the dealer's final hand totals 22.
DEALER_22 = "dealer-total-22"

PRICERS: dict[str, Pricer] = {
    PAIRED_STAKE: Pricer("Activator (required)", {"activator": Priced.same(ratio)}),
    BUST_PAYTABLE: Pricer("Blackjack or Bust wager (required)", {
        "blackjack_or_bust_paytables": Priced(_bob_paytable),
        "paytable": Priced(None, with_key="blackjack_or_bust_paytables",
                           axis=Axis(3, lambda x: f"paytable {x}")),
    }),
    DEALER_22: Pricer("Push 22 wager (optional, per unit of its own stake)", {
        "push22": NotPriced("whether the optional Push 22 wager is offered: the sheet prices "
                            "the wager per unit of its own stake either way"),
        "push22_pays": Priced(setter("push22_pays", ratio)),
    }, dealer_total=DealerTotalWager("push22_pays", "Dealer 22 ({odds})")),
}

#: The keys of each mechanism that changes the play (no wager of its own), found from its
#: declared ``game_keys``: a group is the mechanism's when it declares one of its keys.
RULE_CHANGES: tuple[dict[str, Entry], ...] = (
    {  # Bingo's target and multiplier draw (§ 633b.28(e))
        "bingo_targets": Priced(_bingo_lanes("bingo_targets", BINGO_TARGETS)),
        "bingo_multipliers": Priced(_bingo_lanes("bingo_multipliers", BINGO_MULTIPLIERS)),
        "target_weights": Priced(setter("target_weights", _weights(BINGO_TARGETS))),
        "multiplier_weights": Priced(setter("multiplier_weights",
                                            _weights(BINGO_MULTIPLIERS))),
        "multiplier_on_double": Priced(setter("multiplier_on_double", bool)),
    },
    {"dealer_22_pushes": Priced(setter("dealer_22_pushes", bool))},  # Free Bet
    {  # Free Bet's free splits and doubles
        "free_split": Priced(setter("free_split", bool)),
        "real_split_values": Priced(setter("real_split_values", ints)),
        "free_double_on": Priced(setter("free_double_on", _free_double_totals)),
    },
    {  # Spanish 21 (§ 635a.10)
        "player_21_wins": Priced(setter("player_21_wins", bool)),
        "player_blackjack_wins": Priced(setter("player_blackjack_wins", bool)),
    },
    {"rescue": Priced(setter("rescue", bool))},  # Spanish 21's rescue (§ 635a.9)
    {  # Spanish 21's bonus payouts (§ 635a.12)
        _BONUS: Priced(_spanish),
        "super_bonus": Priced(None, with_key=_BONUS),
        "super_bonus_25_or_more": Priced(None, with_key=_BONUS),
        "envy_bonus": Priced(_envy),
        "envy_bonus_cents": Priced(None, with_key="envy_bonus"),
    },
)


def every_entry() -> list[tuple[str, Entry]]:
    """Every mechanism key the math declares (each once), for the sheet's axes and tests."""
    return [kv for group in (*(p.keys for p in PRICERS.values()), *RULE_CHANGES)
            for kv in group.items()]


def pricer(hook: str, wager: str) -> Pricer:
    """The calculation registered under ``hook``, the PAR hook wager ``wager`` declares."""
    found = PRICERS.get(hook)
    if found is None:
        raise UnknownSetting(
            f"wager {wager!r} is priced by PAR hook {hook!r}: the math has no calculation "
            f"registered under it (firmware/math/wagers.py PRICERS), or declare the wager "
            f"par=None (not priced yet)")
    return found


def mechanism_keys(cls: Any) -> dict[str, Entry]:
    """The Rules Submission keys mechanism class ``cls`` brings, found from its
    declaration (its wagers' PAR hooks and its ``game_keys``); refused when it declares
    nothing the math knows, so a new mechanism cannot go unpriced silently."""
    out: dict[str, Entry] = {}
    for w in cls.wagers:
        if w.par is not None:
            out.update(pricer(w.par, w.name).keys)
    for group in RULE_CHANGES:
        if set(group) & set(cls.game_keys):
            out.update(group)
    if not out and not cls.wagers:
        raise UnknownSetting(
            f"mechanism {cls.name!r}: the math knows none of its keys and it declares no "
            f"wager: price its keys (firmware/math/wagers.py RULE_CHANGES) or declare them "
            f"not priced")
    return out


def declared_wagers(mechanisms: Any) -> list[tuple[str, str | None]]:
    """(wager name, PAR hook) of every wager the mechanisms named declare, in order."""
    from firmware.engine.mechanism import mechanism_class

    return [(w.name, w.par) for name in mechanisms
            for w in mechanism_class(str(name), "the math").wagers]


def wager_key(rules: Any, hook: str) -> str:
    """The name of the wager of ``rules`` (a GameRules) priced by ``hook``: the key its
    figures are filed under, from its declaration."""
    for h, name in rules.wagers:
        if h == hook:
            return str(name)
    raise MathError(f"{rules.variant}: no wager of the rules in force is priced by {hook!r}")


def dealer_total_wagers(rules: Any) -> list[tuple[DealerTotalWager, Fraction]]:
    """The dealer-total wagers ``rules`` (a GameRules) declares and prices, with their
    odds, each keyed by its declared name."""
    out = []
    for hook, name in rules.wagers:
        d = PRICERS[hook].dealer_total
        odds = d.odds(rules) if d is not None else None
        if d is not None and odds is not None:
            out.append((replace(d, key=name), odds))
    return out


def wager_titles(rules: Any) -> dict[str, str]:
    """Wager name -> the sheet's caption of its lines, for the priced wagers of ``rules``."""
    return {name: PRICERS[hook].title for hook, name in rules.wagers}


def not_priced_wagers(mechanisms: Any) -> dict[str, str]:
    """Wager name -> why the math does not price it (the PAR sheet prints it), for the
    wagers the mechanisms named declare with no PAR hook."""
    return {name: "the math does not price this wager yet (its declaration has no PAR hook)"
            for name, hook in declared_wagers(mechanisms) if hook is None}


__all__ = [
    "BINGO_MULTIPLIERS",
    "BINGO_TARGETS",
    "BUST_PAYTABLE",
    "DEALER_22",
    "PAIRED_STAKE",
    "PRICERS",
    "REFERENCE_WAGER",
    "RULE_CHANGES",
    "DealerTotalWager",
    "Pricer",
    "SpanishBonuses",
    "dealer_total_wagers",
    "declared_wagers",
    "every_entry",
    "mechanism_keys",
    "not_priced_wagers",
    "pricer",
    "wager_key",
    "wager_titles",
]
