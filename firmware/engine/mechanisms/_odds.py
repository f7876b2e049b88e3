"""Small helpers the mechanisms share: reading odds and tables from a Rules Submission."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from etgcore.errors import ConfigError
from firmware.engine.settings import parse_ratio


def ratio(value: Any, source: str, key: str) -> Fraction:
    """Odds written ``"A:B"`` in a rules file, or ConfigError naming the key."""
    try:
        return parse_ratio(value)
    except ValueError as exc:
        raise ConfigError(source, key, str(exc)) from None


def odds_table(value: Any, names: tuple[str, ...], source: str, key: str) -> dict[str, Fraction]:
    """A ``{name = "A:B", ...}`` table holding exactly ``names``."""
    if not isinstance(value, Mapping) or set(value) != set(names):
        raise ConfigError(source, key, f"must be a table of odds for exactly {', '.join(names)}")
    return {n: ratio(value[n], source, f"{key}.{n}") for n in names}

