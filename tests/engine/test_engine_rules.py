"""Rules Submission loading and validation (issue 3 point 2; baseline §1 RS settings)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import firmware.engine  # noqa: F401  (registers the configuration validator)
from etgcore.errors import ConfigError
from firmware.config import load_config
from firmware.engine.rules import (
    available_variants,
    load_rules,
    parse_rules_data,
    read_rules_file,
    rules_path,
)

BASELINE_DEFAULTS = {
    "burn_cards": 1,                    # §1.3
    "double_on": "any-two",             # §1.7
    "double_after_split": True,         # §1.7
    "max_hands": 4,                     # §1.8
    "resplit_aces": False,              # §1.8
    "late_surrender": True,             # §1.9
    "dealer_hits_soft_17": False,       # §1.10
    "blackjack_pays": Fraction(3, 2),   # §1.11
    "max_payout_per_round": None,       # §1.11
    "wager_unit": 100,                  # §1.12
}


def test_baseline_1_every_rs_setting_with_its_default() -> None:
    r = load_rules("blackjack")
    for key, value in BASELINE_DEFAULTS.items():
        assert r.settings[key] == value, key
    assert {"decks", "min_wager", "max_wager"} <= set(r.settings)
    assert r.max_seats == 7 and r.insurance_pays == Fraction(2, 1)
    assert "blackjack" in available_variants()


def test_overrides_are_typed_values() -> None:
    r = load_rules("blackjack", {"decks": 8, "blackjack_pays": "6:5",
                                 "max_payout_per_round": 500000, "dealer_hits_soft_17": True})
    assert r.decks == 8 and r.blackjack_pays == Fraction(6, 5)
    assert r.max_payout_per_round == 500000 and r.dealer_hits_soft_17
    assert r.to_json()["overrides"]["decks"] == 8


@pytest.mark.parametrize(
    ("overrides", "key", "words"),
    [
        ({"deks": 6}, "rules.deks", "unknown setting"),
        ({"decks": "six"}, "rules.decks", "an integer from 1 to 8"),
        ({"decks": 9}, "rules.decks", "from 1 to 8"),
        ({"decks": True}, "rules.decks", "an integer"),
        ({"double_on": "any"}, "rules.double_on", "'any-two', '9-11', '10-11'"),
        ({"late_surrender": "yes"}, "rules.late_surrender", "true or false"),
        ({"blackjack_pays": "7:5"}, "rules.blackjack_pays", "'3:2', '6:5', '2:1'"),
        ({"blackjack_pays": 1.5}, "rules.blackjack_pays", "one of"),
        ({"max_payout_per_round": -1}, "rules.max_payout_per_round", "'none' or"),
        ({"max_payout_per_round": "lots"}, "rules.max_payout_per_round", "'none' or"),
        ({"min_wager": 100000, "max_wager": 500}, "rules.min_wager", "above max_wager"),
        ({"min_wager": 550}, "rules.min_wager", "multiple of wager_unit"),
    ],
)
def test_override_errors_name_source_key_and_allowed(
    overrides: dict[str, object], key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as err:
        load_rules("blackjack", overrides, source="table.toml")
    assert err.value.key == key
    assert words in err.value.problem
    assert str(err.value).startswith("table.toml: ")


def test_unknown_setting_lists_allowed_and_names_rs_file() -> None:
    with pytest.raises(ConfigError) as err:
        load_rules("blackjack", {"nope": 1}, source="x.toml")
    assert "blackjack.toml" in err.value.problem and "late_surrender" in err.value.problem


def test_unknown_variant() -> None:
    with pytest.raises(ConfigError, match="no Rules Submission for variant 'poker'"):
        load_rules("poker")


@pytest.mark.parametrize(
    ("mutate", "key"),
    [
        (lambda d: d["game"].update(max_seats=9), "game.max_seats"),
        (lambda d: d["game"].update(deck="tarot"), "game.deck"),
        (lambda d: d["game"].update(colour="red"), "game.colour"),
        (lambda d: d["game"].update(insurance_pays="2"), "game.insurance_pays"),
        (lambda d: d["settings"].pop("decks"), "settings.decks"),
        (lambda d: d["settings"].update(decks={"default": 9, "min": 1, "max": 8}),
         "settings.decks.default"),
        (lambda d: d["settings"].update(x={"default": "a"}), "settings.x.allowed"),
        (lambda d: d["settings"].update(x={"default": 1, "colour": 2}), "settings.x.colour"),
        (lambda d: d["settings"].update(x={"default": 1, "type": "float"}), "settings.x.type"),
        (lambda d: d.update(extra={}), "extra"),
        (lambda d: d["game"].update(mechanisms=["no-such-thing"]), "game.mechanisms"),
    ],
)
def test_rules_file_errors_name_file_and_key(mutate: object, key: str) -> None:
    import tomllib

    data = tomllib.loads(rules_path("blackjack").read_text(encoding="utf-8"))
    mutate(data)  # type: ignore[operator]
    with pytest.raises(ConfigError) as err:
        from firmware.engine.rules import Rules

        Rules(parse_rules_data(data, "bj.toml"), {}, "")
    assert err.value.key == key and err.value.source == "bj.toml"


def test_weights_and_int_list_setting_types() -> None:
    from firmware.engine.settings import parse_spec

    w = parse_spec("target_weights", {"default": {"12": 1, "21": 3}, "type": "weights",
                                      "allowed": [12, 21]}, "f")
    assert w.default_value == {"12": 1, "21": 3}
    with pytest.raises(ConfigError, match="integer weights"):
        w.convert({"13": 1}, "f", "rules.target_weights")
    with pytest.raises(ConfigError, match="above 0"):
        w.convert({"12": 0}, "f", "rules.target_weights")
    lst = parse_spec("free_double_on", {"default": [9, 10, 11], "type": "int-list",
                                        "min": 4, "max": 20}, "f")
    assert lst.default_value == (9, 10, 11)
    with pytest.raises(ConfigError, match="list of integers"):
        lst.convert([3], "f", "rules.free_double_on")


def test_shipped_rules_file_parses() -> None:
    rf = read_rules_file("blackjack")
    assert rf.game["variant"] == "blackjack" and "decks" in rf.specs


# -- the table configuration validator (firmware.config.CHECKS) ---------

def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "table.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_config_rules_section_validated_against_rules_submission(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, "[rules]\ndecks = 8\ndealer_hits_soft_17 = true\n"))
    assert cfg.rules["decks"] == 8
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, "[rules]\ndecks = 12\n"))
    assert err.value.key == "rules.decks" and "table.toml" in err.value.source
    assert "from 1 to 8" in err.value.problem


def test_config_set_rules_override_validated() -> None:
    assert load_config(None, ["rules.late_surrender=false"]).rules["late_surrender"] is False
    with pytest.raises(ConfigError) as err:
        load_config(None, ["rules.double_on=never"])
    assert err.value.key == "rules.double_on" and "--set" in err.value.source
    assert "'any-two'" in err.value.problem
    with pytest.raises(ConfigError, match="unknown setting"):
        load_config(None, ["rules.bogus=1"])


def test_config_seats_cannot_exceed_variant_maximum(monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware.engine import rules as rules_mod

    real = rules_mod.load_rules

    def six_seats(variant: str, overrides: object = None, source: str = "") -> object:
        r = real(variant, overrides, source)  # type: ignore[arg-type]
        r.max_seats = 6
        return r

    monkeypatch.setattr("firmware.engine.config_check.load_rules", six_seats)
    with pytest.raises(ConfigError) as err:
        load_config(None, ["table.seats=7"])
    assert err.value.key == "table.seats" and "at most 6" in err.value.problem
    assert load_config(None, ["table.seats=6"]).table.seats == 6
