"""The rule values the math needs, as one typed, hashable object.

:class:`GameRules` is the only place the calculators read rules from. It is derived
from the engine's ``Rules`` by one function (:func:`from_engine`), never typed in: every
key of the Rules Submission is read through its declaration in
:mod:`firmware.math.rule_table` (the base game) or :mod:`firmware.math.wagers` (a
mechanism's keys), and a key declared in neither is refused, naming it. ``rules_hash``
keys every cache (strategy tables on disk and in memory), so a change of any rule value
recomputes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction
from typing import Any

from firmware.math.composition import Shoe
from firmware.math.rule_table import BASE, Entry, NotPriced, Priced, UnknownSetting, ratio
from firmware.math.wagers import (
    BINGO_MULTIPLIERS,
    BINGO_TARGETS,
    SpanishBonuses,
    declared_wagers,
    mechanism_keys,
)


@dataclass(frozen=True)
class GameRules:
    """Everything a calculation depends on. Money is in units of the initial wager."""

    variant: str
    decks: int
    deck: str = "standard"
    dealer_hits_soft_17: bool = False
    blackjack_pays: Fraction = Fraction(3, 2)
    insurance_pays: Fraction = Fraction(2)
    dealer_check: bool = True
    #: ``[game] auto_stand_21`` of the Rules Submission, the engine's own key: a hand
    #: reaching 21 stands by itself (baseline §1.6); false in Split to Double, where a
    #: split 21 may double (§ 633b.26(e)(1)(iii), (e)(2))
    auto_stand_21: bool = True
    hitting: bool = True
    double_times: tuple[int, ...] = (1,)
    double_cards: str = "two"  # "two" | "any"
    double_on: str = "any-two"  # "any-two" | "9-11" | "10-11"
    double_after_split: bool = True
    split_any_initial: bool = False
    max_hands: int = 4
    resplit_aces: bool = False
    split_aces_one_card: bool = True
    late_surrender: bool = True
    surrender_refund: Fraction = Fraction(1, 2)
    # Free Bet (baseline §4)
    dealer_22_pushes: bool = False
    free_split: bool = False  # pairs split for a lammer, except real_split_values
    real_split_values: tuple[int, ...] = (10,)
    free_double_on: tuple[int, ...] = ()  # hard two-card totals doubled for a lammer
    push22_pays: Fraction | None = None
    # Spanish 21 (baseline §5)
    player_21_wins: bool = False
    player_blackjack_wins: bool = False  # a player Blackjack beats a dealer Blackjack
    rescue: bool = False
    spanish_bonuses: SpanishBonuses | None = None
    # Split to Double: Blackjack or Bust paytable (baseline §2); odds by hand line
    bob_paytable: tuple[tuple[str, Fraction], ...] | None = None
    # Bingo (baseline §3)
    activator: Fraction = Fraction(0)
    target_weights: tuple[int, ...] = ()
    multiplier_weights: tuple[int, ...] = ()
    multiplier_on_double: bool = False
    #: the Blackjack wager (cents) fixed payouts are expressed against: the Spanish 21
    #: super bonus is a fixed amount, so its value per unit depends on the wager ($10)
    reference_wager: int = 1000
    #: Spanish 21 envy bonus to each other seat per super bonus, cents (not in the edge of
    #: a seat's own wagers; the PAR sheet reports it per other seat)
    envy_cents: int = 0
    extra: tuple[tuple[str, Any], ...] = field(default=())
    #: (PAR hook, wager name) of each declared wager of the mechanisms in force that the
    #: math prices (:mod:`firmware.math.wagers`): the names its figures are filed under.
    #: Labels, not rule values: outside :meth:`to_json`, so the digests do not move.
    wagers: tuple[tuple[str, str], ...] = ()

    @property
    def shoe(self) -> Shoe:
        return Shoe(self.decks, self.deck)

    @property
    def bingo(self) -> bool:
        return self.activator > 0

    def with_(self, **changes: Any) -> GameRules:
        return replace(self, **changes)

    def to_json(self) -> dict[str, Any]:
        def conv(x: Any) -> Any:
            if isinstance(x, Fraction):
                return f"{x.numerator}:{x.denominator}"
            if isinstance(x, dict):
                return {k: conv(v) for k, v in x.items()}
            if isinstance(x, (list, tuple)):
                return [conv(v) for v in x]
            return x

        return {k: conv(v) for k, v in asdict(self).items() if k not in ("extra", "wagers")}

    @property
    def rules_hash(self) -> str:
        """The first 16 hex digits of :attr:`rules_sha256`: a cache key and short name."""
        return self.rules_sha256[:16]

    @property
    def rules_sha256(self) -> str:
        """SHA-256 of the rules' canonical JSON (sorted keys): what a lab compares."""
        blob = json.dumps(self.to_json(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()


def known_keys(mechanisms: Any) -> dict[str, Entry]:
    """Every Rules Submission key the math knows for a game with ``mechanisms``: the base
    game's and each mechanism's, found from the mechanism's declaration
    (:func:`~firmware.math.wagers.mechanism_keys`); a mechanism that declares nothing the
    math knows is refused."""
    from firmware.engine.mechanism import mechanism_class

    known: dict[str, Entry] = dict(BASE)
    for name in mechanisms:
        known.update(mechanism_keys(mechanism_class(str(name), "the math")))
    return known


def from_values(values: Mapping[str, Any]) -> GameRules:
    """A :class:`GameRules` from the Rules Submission's effective values.

    ``values`` holds the ``[game]`` facts and the ``[settings]`` in force (defaults plus
    the table's overrides), under the names the TOML files use. Every key must be known
    to the math (:func:`known_keys`): a key it neither prices nor declares not priced is
    refused (:class:`~firmware.math.rule_table.UnknownSetting`, naming the key), so a new
    setting cannot go unpriced silently.
    """
    v = dict(values)
    known = known_keys(v.get("mechanisms", ()))
    unknown = sorted(set(v) - set(known))
    if unknown:
        raise UnknownSetting(
            f"setting {unknown[0]!r} of the {v.get('variant', '?')} Rules Submission: the "
            f"math does not know it: price it (firmware/math/rule_table.py, or its "
            f"mechanism's keys in firmware/math/wagers.py) or declare it not priced, with "
            f"the reason the PAR sheet prints")
    g = GameRules(variant=str(v.get("variant", "blackjack")), decks=int(v.get("decks", 6)))
    ch: dict[str, Any] = {}
    for key, entry in known.items():
        if isinstance(entry, Priced) and key in v:
            ch.update(entry.fields(key, v[key], v))
    # the declared wagers the math prices, by PAR hook: the keys their figures go under
    ch["wagers"] = tuple((hook, name) for name, hook in declared_wagers(v.get("mechanisms", ()))
                         if hook is not None)
    return _checked(replace(g, **ch))


def not_priced(rules: Any) -> list[tuple[str, Any, str]]:
    """(key, value in force, reason) of every key of ``rules`` (the engine's ``Rules``)
    the math does not price, base game first: what the PAR sheet lists."""
    values = _values(rules)
    known = known_keys(values.get("mechanisms", ()))
    return [(k, values[k], e.reason) for k, e in known.items()
            if isinstance(e, NotPriced) and k in values]


def _checked(out: GameRules) -> GameRules:
    """``out`` as the calculators can value it, or a UserError for a rule they cannot.

    Spanish 21 (§ 635a.10(a)): a split 21 may double instead of standing by itself, but
    after the dealer's check a player 21 wins whatever the dealer makes, so standing wins
    one unit for certain, and a double of it is worth at most about 0.53 unit for every
    up card (tests/math/test_math_spanish21_double21.py:
    test_635a10a_doubling_a_21_never_pays). The best play stands, its value is the
    standing 21's, which the calculators already compute, so the PAR is the game's.
    """
    if out.hitting and not out.auto_stand_21 and out.player_21_wins and out.dealer_check:
        out = replace(out, auto_stand_21=True)
    if out.hitting and not out.auto_stand_21:
        from etgcore.errors import UserError

        raise UserError("auto_stand_21 = false: the math values it only for games without "
                        "hitting (Split to Double)")
    return out


def as_game_rules(rules: Any) -> GameRules:
    """``rules`` as :class:`GameRules`: an engine ``Rules`` is adapted, a GameRules kept."""
    if isinstance(rules, GameRules):
        return rules
    return from_engine(rules)


def _values(rules: Any) -> dict[str, Any]:
    values: dict[str, Any] = dict(rules.game)
    values.update(rules.settings)
    values["variant"] = rules.variant
    values["deck"] = rules.deck_kind
    return values


def from_engine(rules: Any) -> GameRules:
    """The math's view of the engine's loaded Rules Submission
    (``firmware.engine.rules.Rules``): the one function the math reads rules through."""
    return from_values(_values(rules))


def load(variant: str, overrides: Mapping[str, Any] | None = None) -> GameRules:
    """Load ``firmware/rules/<variant>.toml`` through the engine with ``overrides``."""
    from firmware.engine.rules import load_rules

    return from_engine(load_rules(variant, dict(overrides or {}), "--set"))


__all__ = ["BINGO_MULTIPLIERS", "BINGO_TARGETS", "GameRules", "SpanishBonuses", "as_game_rules",
           "from_engine", "known_keys", "load", "not_priced", "ratio"]
