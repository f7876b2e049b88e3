"""Rules Submission settings: how one is declared, described and checked.

Each setting in a Rules Submission TOML is an inline table with its default and what it
allows. The type vocabulary is small on purpose (int, bool, choice, ratio, cents-or-none,
int-list, weights): it is everything the five games need, and each type knows how to check
a value and say what it accepts, so an override error always lists the allowed values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from etgcore.errors import ConfigError

TYPES = ("int", "bool", "choice", "ratio", "cents-or-none", "int-list", "weights")
SPEC_KEYS = ("default", "type", "allowed", "min", "max", "doc")


def parse_ratio(text: Any) -> Fraction:
    """``"3:2"`` -> Fraction(3, 2). Odds are exact; a float never enters the engine."""
    if isinstance(text, str) and text.count(":") == 1:
        a, b = text.split(":")
        if a.strip().isdigit() and b.strip().isdigit() and int(b) > 0:
            return Fraction(int(a), int(b))
    raise ValueError(f"must be odds written 'A:B' with whole numbers (e.g. '3:2'), got {text!r}")


def odds_text(odds: Fraction) -> str:
    """3/2 -> "3 to 2"; whole odds read "N to 1" (the layout's words for odds)."""
    return f"{odds.numerator} to {odds.denominator}"


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True)
class SettingSpec:
    name: str
    type: str
    default: Any
    allowed: tuple[Any, ...] | None
    lo: int | None
    hi: int | None
    doc: str
    default_value: Any = None

    def describe(self) -> str:
        """What this setting accepts, for messages and `etg config keys`-style listings."""
        if self.type == "bool":
            if self.allowed is not None and len(set(self.allowed)) == 1:
                return f"{str(self.allowed[0]).lower()} (the only value allowed)"
            return "true or false"
        if self.type == "weights":
            keys = ", ".join(str(a) for a in self.allowed or ())
            return f"a table of integer weights >= 0 for keys {keys}"
        if self.allowed is not None and len(self.allowed) == 1 and self.type != "int-list":
            return f"{self.allowed[0]!r} (the only value allowed)"
        if self.allowed is not None:
            what = ", ".join(repr(a) for a in self.allowed)
            return f"{'a list of ' if self.type == 'int-list' else ''}one of {what}"
        rng = ""
        if self.lo is not None and self.lo == self.hi:
            rng = f" equal to {self.lo} (the only value allowed)"
        elif self.lo is not None or self.hi is not None:
            rng = f" from {self.lo if self.lo is not None else '-'} to "
            rng += f"{self.hi if self.hi is not None else 'any'}"
        return {
            "int": "an integer" + rng,
            "ratio": "odds 'A:B'",
            "cents-or-none": "'none' or an integer number of cents" + rng,
            "int-list": "a list of integers" + rng,
            "choice": "a string",
        }.get(self.type, self.type)

    def convert(self, value: Any, source: str, key: str) -> Any:
        """The engine's value for a TOML value, or ConfigError naming key and allowed values."""

        def bad() -> ConfigError:
            # a value the regulation fixes: say which clause (the doc names it)
            why = f": {self.doc}" if self.doc.startswith("fixed") else ""
            return ConfigError(source, key, f"must be {self.describe()}, got {value!r}{why}")

        def in_range(v: int) -> bool:
            if self.allowed is not None and self.type != "weights":
                return v in self.allowed
            return (self.lo is None or v >= self.lo) and (self.hi is None or v <= self.hi)

        t = self.type
        if t == "bool":
            if not isinstance(value, bool):
                raise bad()
            if self.allowed is not None and value not in self.allowed:
                raise bad()
            return value
        if t == "int":
            if not _is_int(value) or not in_range(value):
                raise bad()
            return value
        if t == "choice":
            if not isinstance(value, str) or value not in (self.allowed or ()):
                raise bad()
            return value
        if t == "ratio":
            if self.allowed is not None and value not in self.allowed:
                raise bad()
            try:
                return parse_ratio(value)
            except ValueError:
                raise bad() from None
        if t == "cents-or-none":
            if value == "none":
                return None
            if not _is_int(value) or value < 0 or not in_range(value):
                raise bad()
            return value
        if t == "int-list":
            if not isinstance(value, list | tuple) or not all(
                _is_int(v) and in_range(v) for v in value
            ):
                raise bad()
            return tuple(value)
        if t == "weights":
            if not isinstance(value, Mapping):
                raise bad()
            keys = {str(a) for a in self.allowed or ()}
            if set(value) - keys or not all(_is_int(v) and v >= 0 for v in value.values()):
                raise bad()
            out = {str(k): int(value.get(str(k), 0)) for k in self.allowed or ()}
            if not any(out.values()):
                raise ConfigError(source, key, "at least one weight must be above 0")
            return out
        raise bad()  # pragma: no cover - parse_spec admits only TYPES


def parse_spec(name: str, raw: Any, source: str) -> SettingSpec:
    """A setting declaration from a Rules Submission file, its default checked too."""
    key = f"settings.{name}"
    if not isinstance(raw, Mapping):
        raise ConfigError(source, key, "must be an inline table {default = ..., ...}")
    bad = sorted(set(raw) - set(SPEC_KEYS))
    if bad:
        keys = ", ".join(SPEC_KEYS)
        raise ConfigError(source, f"{key}.{bad[0]}", f"unknown key (allowed: {keys})")
    if "default" not in raw:
        raise ConfigError(source, key, "needs a default")
    default = raw["default"]
    t: Any = raw.get("type")
    if t is None:
        t = ("bool" if isinstance(default, bool) else "int" if _is_int(default)
             else "choice" if isinstance(default, str) else None)
    if t not in TYPES:
        raise ConfigError(source, f"{key}.type", f"must be one of {', '.join(TYPES)}, got {t!r}")
    allowed = raw.get("allowed")
    if allowed is not None and not isinstance(allowed, list):
        raise ConfigError(source, f"{key}.allowed", "must be a list")
    if t == "choice" and not allowed:
        raise ConfigError(source, f"{key}.allowed", "a choice needs its allowed values")
    if t == "weights" and not allowed:
        raise ConfigError(source, f"{key}.allowed", "weights need their keys in allowed")
    spec = SettingSpec(
        name=name, type=t, default=default,
        allowed=tuple(allowed) if allowed is not None else None,
        lo=raw.get("min"), hi=raw.get("max"), doc=str(raw.get("doc", "")),
    )
    value = spec.convert(default, source, f"{key}.default")
    object.__setattr__(spec, "default_value", value)
    return spec
