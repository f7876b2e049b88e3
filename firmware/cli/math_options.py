"""What every math command takes: the variant, rule overrides, and how to read them.

``--set KEY=VALUE`` is the `etg` common option; for the math commands a KEY names a
Rules Submission setting of the chosen variant (``decks=8``, ``rules.decks=8``), or
``table.variant``. ``decks=0`` is the infinite deck: the engine's Rules Submission allows
1-8 decks, so the math loads the submission without it and computes for the infinite
deck itself (every math command supports it).
"""

from __future__ import annotations

import argparse
import tomllib
from typing import Any

from etgcore.errors import UserError
from firmware.math.ruleset import GameRules, as_game_rules


def add_rules_options(p: argparse.ArgumentParser) -> None:
    from firmware.cli.variant import add_variant

    add_variant(p, "the game (default: the table configuration's, else blackjack)")


def _value(text: str) -> Any:
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def pinned_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The Rules Submission settings ``--set`` names (the PAR sheet holds them)."""
    out: dict[str, Any] = {}
    for item in args.overrides or []:
        if "=" not in item:
            continue
        key, text = (s.strip() for s in item.split("=", 1))
        if key.startswith("rules."):
            key = key[len("rules."):]
        if "." not in key:
            out[key] = _value(text)
    return out


def rules_from_args(args: argparse.Namespace) -> GameRules:
    """The rules a math command runs on: ``--variant`` and every ``--set``."""
    from firmware.engine.rules import load_rules

    variant = args.variant
    overrides: dict[str, Any] = {}
    infinite = False
    for item in args.overrides or []:
        if "=" not in item:
            raise UserError(f"--set {item!r}: expected KEY=VALUE, e.g. --set decks=8")
        key, text = (s.strip() for s in item.split("=", 1))
        if key == "table.variant":
            variant = variant or text
            continue
        if key.startswith("rules."):
            key = key[len("rules."):]
        elif "." in key:
            raise UserError(f"--set {key}: the math commands take Rules Submission settings "
                            "(e.g. decks=8 or rules.decks=8) and table.variant")
        value = _value(text)
        if key == "decks" and value == 0:
            infinite = True
            continue
        overrides[key] = value
    rules = as_game_rules(load_rules(variant or "blackjack", overrides, "--set"))
    if infinite:
        rules = rules.with_(decks=0)
    return rules
