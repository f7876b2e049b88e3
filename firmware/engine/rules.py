"""Rules Submissions: one TOML file per game, loaded, validated and overridden.

The file is the single place a game's rules live (``firmware/rules/<variant>.toml``): the
``[game]`` section holds what the regulation fixes, ``[settings]`` the certificate
holder's choices, each declared with its default and what it allows, so that the file,
the validation of overrides and ``etg config`` messages can never disagree. Problems are
reported as :class:`~etgcore.errors.ConfigError` naming the file, the key and the
allowed values.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, get_args

from etgcore.errors import ConfigError
from firmware.engine.cards import DECKS
from firmware.engine.settings import SettingSpec, parse_ratio, parse_spec

RULES_DIR = Path(__file__).resolve().parents[1] / "rules"

#: The five games a table can deal, each with its Rules Submission in firmware/rules/.
Variant = Literal["blackjack", "split-to-double", "bingo", "free-bet", "spanish21"]
VARIANTS: tuple[str, ...] = get_args(Variant)

#: Keys of [game] with their default (a variant file may leave any out) and the check.
GAME_KEYS: dict[str, Any] = {
    "variant": None,
    "title": None,
    "regulation": "",
    "max_seats": 7,
    "deck": "standard",
    "insurance_pays": "2:1",
    "mechanisms": [],
    "hitting": True,
    "double_times": [1],
    "double_cards": "two",
    "split_any_initial": False,
    "split_aces_one_card": True,
    "surrender_refund": "1:2",
    "dealer_check": True,
    "payout_limit_exempt": False,
    # baseline §1.6: a hand reaching 21 stands by itself; false: it still owes a decision
    # (Split to Double: a split 21 may double, § 633b.26(e)(1)(iii), (e)(2))
    "auto_stand_21": True,
}
LAYOUT_KEYS: dict[str, Any] = {
    "dealer_stands_soft_17": "Dealer shall draw to 16 and stand on all 17s",
    "dealer_hits_soft_17": "Dealer shall draw to 16 and hit soft 17",
    "inscriptions": [],
}
#: Settings every game has, because the engine itself reads them (baseline §1).
CORE_SETTINGS = (
    "decks", "burn_cards", "double_on", "double_after_split", "max_hands", "resplit_aces",
    "late_surrender", "dealer_hits_soft_17", "blackjack_pays", "max_payout_per_round",
    "wager_unit", "min_wager", "max_wager",
)


def rules_path(variant: str) -> Path:
    return RULES_DIR / f"{variant}.toml"


def available_variants() -> list[str]:
    return sorted(p.stem for p in RULES_DIR.glob("*.toml"))


@dataclass(frozen=True)
class RulesFile:
    """A parsed and checked Rules Submission file, before overrides."""

    source: str
    game: Mapping[str, Any]
    layout: Mapping[str, Any]
    specs: Mapping[str, SettingSpec]


def _mechanism_keys(source: str, names: Any) -> dict[str, Any]:
    """The ``[game]`` keys (with defaults) the listed mechanisms read."""
    if not isinstance(names, list) or not all(isinstance(m, str) for m in names):
        raise ConfigError(source, "game.mechanisms", "must be a list of mechanism names")
    from firmware.engine.mechanism import mechanism_class

    keys: dict[str, Any] = {}
    for name in names:
        keys.update(mechanism_class(name, source).game_keys)
    return keys


def _check_game(source: str, game: Mapping[str, Any]) -> dict[str, Any]:
    known = {**GAME_KEYS, **_mechanism_keys(source, game.get("mechanisms", []))}
    out = dict(known)
    unknown = sorted(set(game) - set(known))
    if unknown:
        raise ConfigError(
            source, f"game.{unknown[0]}", f"unknown key (allowed: {', '.join(known)})"
        )
    out.update(game)
    for key in ("variant", "title"):
        if not isinstance(out[key], str) or not out[key]:
            raise ConfigError(source, f"game.{key}", "must be a non-empty string")
    for key in ("hitting", "split_any_initial", "split_aces_one_card", "dealer_check",
                "payout_limit_exempt", "auto_stand_21"):
        if not isinstance(out[key], bool):
            raise ConfigError(source, f"game.{key}", f"must be true or false, got {out[key]!r}")
    ms = out["max_seats"]
    if isinstance(ms, bool) or not isinstance(ms, int) or not 1 <= ms <= 7:
        raise ConfigError(source, "game.max_seats", f"must be an integer 1..7, got {ms!r}")
    if out["deck"] not in DECKS:
        raise ConfigError(source, "game.deck", f"must be one of {', '.join(DECKS)}")
    if out["double_cards"] not in ("two", "any"):
        raise ConfigError(source, "game.double_cards", "must be one of 'two', 'any'")
    dt = out["double_times"]
    if not isinstance(dt, list) or not dt or not all(
        isinstance(t, int) and not isinstance(t, bool) and 1 <= t <= 10 for t in dt
    ):
        raise ConfigError(source, "game.double_times", "must be a list of integers 1..10")
    ms_list = out["mechanisms"]
    if not isinstance(ms_list, list) or not all(isinstance(m, str) for m in ms_list):
        raise ConfigError(source, "game.mechanisms", "must be a list of mechanism names")
    for key in ("insurance_pays", "surrender_refund"):
        try:
            parse_ratio(out[key])
        except ValueError as exc:
            raise ConfigError(source, f"game.{key}", str(exc)) from None
    return out


def read_rules_file(variant: str) -> RulesFile:
    """Parse and check ``firmware/rules/<variant>.toml`` (every error names file and key)."""
    path = rules_path(variant)
    source = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        have = ", ".join(available_variants())
        raise ConfigError(
            source, "-", f"no Rules Submission for variant {variant!r} (have: {have})"
        ) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(source, "-", f"cannot read: {exc}") from None
    return parse_rules_data(data, source)


def parse_rules_data(data: Mapping[str, Any], source: str) -> RulesFile:
    """Check a Rules Submission already parsed from TOML (tests build variants this way)."""
    unknown = sorted(set(data) - {"game", "layout", "settings"})
    if unknown:
        raise ConfigError(source, unknown[0], "unknown section (allowed: game, layout, settings)")
    game = _check_game(source, data.get("game", {}))
    layout = dict(LAYOUT_KEYS)
    bad = sorted(set(data.get("layout", {})) - set(LAYOUT_KEYS))
    if bad:
        allowed = ", ".join(LAYOUT_KEYS)
        raise ConfigError(source, f"layout.{bad[0]}", f"unknown key (allowed: {allowed})")
    layout.update(data.get("layout", {}))
    raw = data.get("settings", {})
    specs = {name: parse_spec(name, spec, source) for name, spec in raw.items()}
    missing = [n for n in CORE_SETTINGS if n not in specs]
    if missing:
        raise ConfigError(source, f"settings.{missing[0]}", "missing: every game declares it")
    return RulesFile(source, game, layout, specs)


class Rules:
    """The rules in force at a table: a Rules Submission plus validated overrides.

    The engine reads the attributes below on its hot path, so they are plain attributes
    computed once here; every setting (also those only a mechanism reads) is in
    :attr:`settings` under its Rules Submission name.
    """

    def __init__(self, rf: RulesFile, overrides: Mapping[str, Any], source: str) -> None:
        settings: dict[str, Any] = {}
        for name, declared in rf.specs.items():
            settings[name] = declared.default_value
        label = f"{source}: rules" if source else rf.source
        for key, value in overrides.items():
            spec = rf.specs.get(key)
            if spec is None:
                allowed = ", ".join(sorted(rf.specs))
                raise ConfigError(
                    source or rf.source,
                    f"rules.{key}",
                    f"unknown setting of the {rf.game['variant']} Rules Submission "
                    f"{rf.source} (allowed: {allowed})",
                )
            settings[key] = spec.convert(value, source or rf.source, f"rules.{key}")
        self.file = rf
        self.source = label
        self.overrides: dict[str, Any] = dict(overrides)
        self.settings = settings
        g = rf.game
        self.game = g
        self.layout = rf.layout
        self.variant: str = g["variant"]
        self.title: str = g["title"]
        self.max_seats: int = g["max_seats"]
        self.deck_kind: str = g["deck"]
        self.insurance_pays: Fraction = parse_ratio(g["insurance_pays"])
        self.hitting: bool = g["hitting"]
        self.double_times: tuple[int, ...] = tuple(g["double_times"])
        self.double_any_cards: bool = g["double_cards"] == "any"
        self.split_any_initial: bool = g["split_any_initial"]
        self.split_aces_one_card: bool = g["split_aces_one_card"]
        self.surrender_refund: Fraction = parse_ratio(g["surrender_refund"])
        self.dealer_check: bool = g["dealer_check"]
        self.payout_limit_exempt: bool = g["payout_limit_exempt"]
        self.auto_stand_21: bool = g["auto_stand_21"]
        s = settings
        self.decks: int = s["decks"]
        self.burn_cards: int = s["burn_cards"]
        self.double_on: str = s["double_on"]
        #: two-card totals that may double, or None for any two cards
        self.double_totals: frozenset[int] | None = {
            "any-two": None, "9-11": frozenset((9, 10, 11)), "10-11": frozenset((10, 11)),
        }[s["double_on"]]
        self.double_after_split: bool = s["double_after_split"]
        self.max_hands: int = s["max_hands"]
        self.resplit_aces: bool = s["resplit_aces"]
        self.late_surrender: bool = s["late_surrender"]
        self.dealer_hits_soft_17: bool = s["dealer_hits_soft_17"]
        self.blackjack_pays: Fraction = s["blackjack_pays"]
        self.max_payout_per_round: int | None = s["max_payout_per_round"]
        self.wager_unit: int = s["wager_unit"]
        self.min_wager: int = s["min_wager"]
        self.max_wager: int = s["max_wager"]
        where = source or rf.source
        if self.min_wager > self.max_wager:
            raise ConfigError(where, "rules.min_wager",
                              f"{self.min_wager} is above max_wager {self.max_wager}")
        for key in ("min_wager", "max_wager"):
            if s[key] % self.wager_unit:
                raise ConfigError(where, f"rules.{key}",
                                  f"{s[key]} is not a multiple of wager_unit {self.wager_unit}")
        from firmware.engine.mechanism import Hooks, build_mechanisms

        self.mechanisms = build_mechanisms(g["mechanisms"], self, rf.source)
        self.hooks = Hooks(self.mechanisms)
        for m in self.mechanisms:
            m.check_rules(self, where)

    def to_json(self) -> dict[str, Any]:
        """Enough to rebuild these rules (variant and overrides) plus every value in force."""
        return {
            "variant": self.variant,
            "overrides": dict(self.overrides),
            "settings": {k: _plain(v) for k, v in self.settings.items()},
        }


def _plain(v: Any) -> Any:
    if isinstance(v, Fraction):
        return f"{v.numerator}:{v.denominator}"
    if isinstance(v, tuple):
        return list(v)
    return v


def load_rules(
    variant: str = "blackjack", overrides: Mapping[str, Any] | None = None, source: str = ""
) -> Rules:
    """The rules of ``variant`` with ``overrides`` (named as in docs/rules.md).

    ``source`` names where the overrides came from (a table configuration, a scenario
    file) so an error points there.
    """
    return Rules(read_rules_file(variant), overrides or {}, source)


def rules_from_json(data: Mapping[str, Any]) -> Rules:
    """Inverse of :meth:`Rules.to_json` (the settings part is informative only)."""
    return load_rules(str(data["variant"]), dict(data.get("overrides", {})), "recording")
