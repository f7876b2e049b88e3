"""The rule values the math needs, as one typed, hashable object.

:class:`GameRules` is the only place the calculators read rules from. It is built from
the engine's Rules Submission (:func:`from_submission`), never typed in: a new setting in a
``firmware/rules/<variant>.toml`` reaches the math through here. ``rules_hash`` keys every
cache (strategy tables on disk and in memory), so a change of any rule value recomputes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from fractions import Fraction
from typing import Any

from firmware.math.composition import Shoe

BINGO_TARGETS: tuple[int, ...] = tuple(range(12, 22))  # § 633b.28(e)(1)
BINGO_MULTIPLIERS: tuple[int, ...] = (2, 5, 10, 25, 50, 100)  # § 633b.28(e)(2)


def ratio(text: str | Fraction | int | float) -> Fraction:
    """``"3:2"`` -> Fraction(3, 2); a number is taken as is."""
    if isinstance(text, str):
        if ":" in text:
            a, b = text.split(":", 1)
            return Fraction(int(a), int(b))
        return Fraction(text)
    return Fraction(text)


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

        return {k: conv(v) for k, v in asdict(self).items() if k != "extra"}

    @property
    def rules_hash(self) -> str:
        """The first 16 hex digits of :attr:`rules_sha256`: a cache key and short name."""
        return self.rules_sha256[:16]

    @property
    def rules_sha256(self) -> str:
        """SHA-256 of the rules' canonical JSON (sorted keys): what a lab compares."""
        blob = json.dumps(self.to_json(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()


def from_values(values: Mapping[str, Any]) -> GameRules:
    """A :class:`GameRules` from the Rules Submission's effective values.

    ``values`` holds the ``[game]`` facts and the ``[settings]`` in force (defaults plus
    the table's overrides), under the names the TOML files use. Keys the math does not
    use are ignored; a key the math needs and the submission lacks takes the base game's
    behaviour (baseline §1).
    """
    v = dict(values)
    variant = str(v.get("variant", "blackjack"))
    g = GameRules(variant=variant, decks=int(v.get("decks", 6)))
    ch: dict[str, Any] = {}

    def take(key: str, name: str | None = None, conv: Any = None) -> None:
        if key in v and v[key] is not None:
            ch[name or key] = conv(v[key]) if conv else v[key]

    take("deck")
    take("dealer_hits_soft_17", conv=bool)
    take("blackjack_pays", conv=ratio)
    take("insurance_pays", conv=ratio)
    take("dealer_check", conv=bool)
    take("auto_stand_21", conv=bool)
    take("hitting", conv=bool)
    take("double_times", conv=lambda x: tuple(int(i) for i in x))
    take("double_cards", conv=str)
    take("double_on", conv=str)
    take("double_after_split", conv=bool)
    take("split_any_initial", conv=bool)
    take("max_hands", conv=int)
    take("resplit_aces", conv=bool)
    take("split_aces_one_card", conv=bool)
    take("late_surrender", conv=bool)
    take("surrender", "late_surrender", conv=bool)
    take("surrender_refund", conv=ratio)
    take("dealer_22_pushes", conv=bool)
    take("free_split", conv=bool)
    take("free_double_on", conv=_free_double_totals)
    take("real_split_values", conv=lambda x: tuple(int(i) for i in x))
    for key, lanes in (("bingo_targets", BINGO_TARGETS), ("bingo_multipliers", BINGO_MULTIPLIERS)):
        if key in v and tuple(int(i) for i in v[key]) != lanes:
            from etgcore.errors import UserError

            raise UserError(f"{key} {list(v[key])}: the math knows § 633b.28(e)'s "
                            f"{list(lanes)} only")
    take("player_21_wins", conv=bool)
    take("player_blackjack_wins", conv=bool)
    take("rescue", conv=bool)
    take("activator", conv=ratio)
    take("target_weights", conv=_weights(BINGO_TARGETS))
    take("multiplier_weights", conv=_weights(BINGO_MULTIPLIERS))
    take("multiplier_on_double", conv=bool)
    if (v.get("push22_offered", v.get("push22")) and "push22_pays" in v) or (
        "push22_pays" in v and v.get("push22_offered") is None
    ):
        ch["push22_pays"] = ratio(v["push22_pays"])
    tables = v.get("blackjack_or_bust_paytables")
    if tables:
        col = int(v.get("paytable", 1)) - 1
        ch["bob_paytable"] = tuple((str(row["line"]), ratio(row["odds"][col])) for row in tables)
    if "bob_paytable" in v:
        ch["bob_paytable"] = tuple((str(k), ratio(x)) for k, x in v["bob_paytable"])
    if "spanish_bonuses" in v:
        ch["spanish_bonuses"] = v["spanish_bonuses"]
    if v.get("bonus_odds"):
        ch["spanish_bonuses"] = _spanish(v, int(v.get("reference_wager", 1000)))
        if v.get("envy_bonus", False):
            ch["envy_cents"] = int(v.get("envy_bonus_cents", 0))
    return _checked(replace(g, **ch))


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


def _spanish(v: Mapping[str, Any], wager: int) -> SpanishBonuses:
    """§ 635a.12(b) odds and the (c) super bonus per unit of a ``wager``-cent wager."""
    odds = {k: ratio(x) for k, x in dict(v["bonus_odds"]).items()}
    sb = dict(v.get("super_bonus") or {})
    amount = 0
    if sb and sb.get("from", 0) <= wager < sb.get("below", 0):
        amount = int(sb.get("pays", 0))
    elif sb and wager >= sb.get("below", 0):
        amount = int(v.get("super_bonus_25_or_more", 0))
    fields = {k: odds[k] for k in odds if k in SpanishBonuses.__dataclass_fields__}
    return SpanishBonuses(**fields, super_bonus_units=Fraction(amount, wager))


def _free_double_totals(x: Any) -> tuple[int, ...]:
    if isinstance(x, str):
        if "-" in x:
            lo, hi = x.split("-", 1)
            return tuple(range(int(lo), int(hi) + 1))
        return tuple(int(t) for t in x.replace(",", " ").split())
    return tuple(int(t) for t in x)


def _weights(keys: tuple[int, ...]) -> Any:
    def conv(x: Any) -> tuple[int, ...]:
        if isinstance(x, Mapping):
            return tuple(int(x.get(str(k), x.get(k, 0))) for k in keys)
        return tuple(int(i) for i in x)

    return conv


def as_game_rules(rules: Any) -> GameRules:
    """``rules`` as :class:`GameRules`: an engine ``Rules`` is adapted, a GameRules kept."""
    if isinstance(rules, GameRules):
        return rules
    return from_engine(rules)


def from_engine(rules: Any) -> GameRules:
    """Adapt the engine's loaded Rules Submission (``firmware.engine.rules.Rules``)."""
    values: dict[str, Any] = dict(rules.game)
    values.update(rules.settings)
    values["variant"] = rules.variant
    values["deck"] = rules.deck_kind
    return from_values(values)


def load(variant: str, overrides: Mapping[str, Any] | None = None) -> GameRules:
    """Load ``firmware/rules/<variant>.toml`` through the engine with ``overrides``."""
    from firmware.engine.rules import load_rules

    return from_engine(load_rules(variant, dict(overrides or {}), "--set"))
