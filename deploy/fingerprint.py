"""Configuration control: one hash for the table configuration, one for the rules in force.

In production the service hashes the table configuration and the Rules Submission it
plays into the journal at every start (CONFIG_IN_FORCE), and journals a CONFIG_CHANGE
with the old and new hashes when they differ from the previous start. An auditor then
sees from the journal alone which configuration every round was played under, and when
it changed.

The hashes are over *content*, not files: a comment or a reordered key in ``table.toml``
does not change them, while a ``--set`` override does. The spelling hashed:

- a value becomes JSON: a dataclass an object of its fields (internal ones such as the
  file name left out), a mapping an object with string keys, a tuple, list or set an array
  (sets sorted), a Fraction ``{"fraction": "3/2"}``, an enum its value, bytes
  ``{"bytes_sha256": hex}``; floats as Python's shortest round-trip repr, NaN refused;
- JSON text: keys sorted, no spaces, ASCII (``json.dumps(sort_keys=True,
  separators=(",", ":"), ensure_ascii=True)``);
- ``table`` = SHA-256(``b"etg-table-config/1\\n"`` + JSON), ``rules`` = SHA-256(
  ``b"etg-rules/1\\n"`` + JSON), ``combined`` = SHA-256(``b"etg-config-fingerprint/1\\n"`` +
  table hex + ``"\\n"`` + rules hex + ``"\\n"``), all lowercase hex.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
from collections.abc import Mapping, Set
from dataclasses import dataclass
from fractions import Fraction
from pathlib import PurePath
from typing import Any

#: Key in the journal's info table holding the fingerprint of the previous start.
INFO_KEY = "config_fingerprint"


def canonical_value(value: Any) -> Any:
    """A JSON-ready rendering of a configuration or rules value, the same on every machine."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError("a configuration value is NaN or infinite")
        return value
    if isinstance(value, enum.Enum):
        return canonical_value(value.value)
    if isinstance(value, Fraction):
        return {"fraction": f"{value.numerator}/{value.denominator}"}
    if isinstance(value, bytes):
        return {"bytes_sha256": hashlib.sha256(value).hexdigest()}
    if isinstance(value, PurePath):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: canonical_value(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if not f.metadata.get("internal")
        }
    if isinstance(value, Mapping):
        return {str(k): canonical_value(v) for k, v in value.items()}
    if isinstance(value, Set):
        items = [canonical_value(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(value, list | tuple):
        return [canonical_value(v) for v in value]
    raise TypeError(f"cannot fingerprint a {type(value).__name__}")


def canonical_json(value: Any) -> bytes:
    return json.dumps(
        canonical_value(value),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=True,
        allow_nan=False,
    ).encode("ascii")


def _digest(domain: bytes, payload: bytes) -> str:
    return hashlib.sha256(domain + payload).hexdigest()


@dataclass(frozen=True)
class ConfigFingerprint:
    table: str
    rules: str
    combined: str

    def as_dict(self) -> dict[str, str]:
        return {"table": self.table, "rules": self.rules, "combined": self.combined}

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ConfigFingerprint:
        doc = json.loads(text)
        return cls(table=str(doc["table"]), rules=str(doc["rules"]), combined=str(doc["combined"]))


def fingerprint(table_config: Any, rules: Any) -> ConfigFingerprint:
    """The hashes of a table configuration and of the rules in force (see the module doc)."""
    table = _digest(b"etg-table-config/1\n", canonical_json(table_config))
    rules_hex = _digest(b"etg-rules/1\n", canonical_json(rules))
    combined = _digest(b"etg-config-fingerprint/1\n", f"{table}\n{rules_hex}\n".encode("ascii"))
    return ConfigFingerprint(table=table, rules=rules_hex, combined=combined)


def config_fingerprint(table_config: Any, rules: Any) -> str:
    """The combined hex hash of the configuration and rules in force."""
    return fingerprint(table_config, rules).combined
