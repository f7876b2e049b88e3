"""The configuration schema machinery: typed, immutable settings checked key by key.

A casino engineer edits ``table.toml``; a typo must never silently fall back to a default.
So every key is known, every value is checked for type and range, and every problem is
reported with the file, the dotted key and what is allowed.

A schema is a frozen dataclass: a field's type says what TOML type it takes and the
field's metadata (:func:`ranged`, :func:`doc`, :func:`text`) its range or choices. Each
package declares its own settings this way; the table's configuration only assembles
them, and nothing else lists the keys, so the example file, the checks and the
documentation cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import tomllib
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, get_args, get_origin

from etgcore.errors import ConfigError


def ranged(lo: float | None = None, hi: float | None = None, doc: str = "") -> dict[str, Any]:
    """Field metadata: a number between ``lo`` and ``hi`` (inclusive)."""
    return {"min": lo, "max": hi, "doc": doc}


def doc(text: str) -> dict[str, Any]:
    """Field metadata: only the meaning of the key."""
    return {"doc": text}


def text(doc: str) -> dict[str, Any]:
    """Field metadata: a string that means nothing when empty (a name, a path, a port)."""
    return {"doc": doc, "nonempty": True}


#: Field metadata of a field that is not a key (set by the loader, never by a file).
INTERNAL: dict[str, Any] = {"internal": True}


def describe_type(tp: Any) -> str:
    """What a person must write for a value of type ``tp`` ("an integer", "one of ...")."""
    origin = get_origin(tp)
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in get_args(tp))
    if origin is tuple:
        return f"an array of {describe_type(get_args(tp)[0])}"
    if dataclasses.is_dataclass(tp):
        return "a table"
    return {int: "an integer", float: "a number", str: "a string", bool: "true or false"}.get(
        tp, "a table"
    )


def _convert(tp: Any, value: Any, meta: Mapping[str, Any], source: str, key: str) -> Any:
    origin = get_origin(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(value, Mapping):
            raise ConfigError(source, key, f"must be {describe_type(tp)}, got {value!r}")
        return build(tp, value, source, key + ".")
    if origin is Literal:
        if value not in get_args(tp):
            raise ConfigError(source, key, f"must be {describe_type(tp)}, got {value!r}")
        return value
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ConfigError(source, key, f"must be {describe_type(tp)}, got {value!r}")
        inner = get_args(tp)[0]
        return tuple(
            _convert(inner, v, meta, source, f"{key}[{i}]") for i, v in enumerate(value)
        )
    if origin in (Mapping, dict) or tp is Mapping:
        if not isinstance(value, Mapping):
            raise ConfigError(source, key, f"must be a table, got {value!r}")
        return types.MappingProxyType(dict(value))
    return _scalar(tp, value, meta, source, key)


def _scalar(tp: Any, value: Any, meta: Mapping[str, Any], source: str, key: str) -> Any:
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(source, key, f"must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(source, key, f"must be an integer, got {value!r}")
    elif tp is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(source, key, f"must be a number, got {value!r}")
        value = float(value)
    elif tp is str:
        if not isinstance(value, str):
            raise ConfigError(source, key, f"must be a string, got {value!r}")
        if meta.get("nonempty") and not value.strip():
            raise ConfigError(source, key, "must not be empty")
        return value
    lo, hi = meta.get("min"), meta.get("max")
    # written as "not inside" so that nan (which TOML allows) is out of every range
    if (lo is not None and not value >= lo) or (hi is not None and not value <= hi):
        raise ConfigError(source, key, f"must be between {lo:g} and {hi:g}, got {value!r}")
    return value


def build(cls: type, data: Mapping[str, Any], source: str, prefix: str = "") -> Any:
    """An instance of the schema ``cls`` from parsed TOML, every key checked.

    ``prefix`` is the dotted path of ``cls`` in the whole file, so a message names the key
    as the person wrote it (``panel.pins.rows[2]``).
    """
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls) if not f.metadata.get("internal")}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        allowed = ", ".join(sorted(fields))
        raise ConfigError(source, prefix + unknown[0], f"unknown key (allowed here: {allowed})")
    kwargs = {
        name: _convert(hints[name], data[name], fields[name].metadata, source, prefix + name)
        for name in data
    }
    return cls(**kwargs)


def key_names(cls: type) -> set[str]:
    """The keys a schema accepts at its top level."""
    return {f.name for f in dataclasses.fields(cls) if not f.metadata.get("internal")}


def parse_override(text: str) -> tuple[list[str], Any]:
    """``KEY=VALUE`` from the command line: the dotted key's parts and the TOML value."""
    if "=" not in text:
        raise ConfigError("--set", text, "expected key=value, e.g. --set table.variant=bingo")
    key, raw = text.split("=", 1)
    key = key.strip()
    if not key or any(not part for part in key.split(".")):
        raise ConfigError("--set", text, "expected a dotted key such as rules.decks")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw  # a bare word: a string, as a person typing it means
    return key.split("."), value


def merge_override(base: dict[str, Any], path: list[str], value: Any) -> None:
    """Put ``value`` at the dotted ``path`` of parsed TOML, refusing to replace a value
    by a table."""
    node = base
    for i, part in enumerate(path[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError("--set", ".".join(path[: i + 1]), "is a value, not a table")
        node = child
    node[path[-1]] = value


def describe_schema(cls: type, prefix: str = "") -> list[tuple[str, str, str, str]]:
    """Every key of ``cls`` with its type, default and meaning (for ``etg config keys``)."""
    rows: list[tuple[str, str, str, str]] = []
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if f.metadata.get("internal"):
            continue
        tp = hints[f.name]
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            rows.extend(describe_schema(tp, prefix + f.name + "."))
            continue
        default: Any = (
            f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[operator]
        )
        if isinstance(default, Mapping):
            default = dict(default)
        lo, hi = f.metadata.get("min"), f.metadata.get("max")
        allowed = describe_type(tp) + (f" in [{lo:g}, {hi:g}]" if lo is not None else "")
        if f.metadata.get("nonempty"):
            allowed += ", not empty"
        rows.append((prefix + f.name, allowed, repr(default), f.metadata.get("doc", "")))
    return rows
