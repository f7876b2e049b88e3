"""Scaled outcome files for the lab: `etg rng draws` writes what this module produces.

Formats (one outcome per line in csv; documented in docs/rng.md):

* ``target`` / ``multiplier``: the drawn value (``17``); bin: one unsigned byte each.
* ``card``: one card drawn uniformly from a deck (52 codes, 48 Spanish), as a code
  (``TD``); bin: the card's index in the unshuffled deck, one byte.
* ``shuffle``: one shuffled shoe per line, card codes separated by commas; bin: one byte
  (card index) per card, shoe after shoe.

Weights for ``target``/``multiplier``: ``--weights`` if given, else the table
configuration's ``[rules]`` override, else the Rules Submission default in
``firmware/rules/bingo.toml``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from etgcore.cards import deck
from etgcore.errors import UserError
from rng.batch import randbelow_batch, shuffle_batch, weighted_batch
from rng.scaling import normalize_weights

WHAT = ("target", "multiplier", "card", "shuffle")
CHUNK = 1 << 17  # outcomes per batch: bounded memory for any --n


def parse_weights(text: str) -> dict[int, int]:
    """``"12:1,13:2"`` -> {12: 1, 13: 2}; bad text is a UserError naming the problem."""
    out: dict[int, int] = {}
    for part in text.split(","):
        value, sep, weight = part.strip().partition(":")
        try:
            if not sep:
                raise ValueError
            v, w = int(value), int(weight)
        except ValueError:
            raise UserError(
                f"--weights: {part.strip()!r} is not VALUE:WEIGHT (e.g. --weights 2:50,5:30)"
            ) from None
        if w < 0:
            raise UserError(f"--weights: weight of {v} must not be negative")
        if v in out:
            raise UserError(f"--weights: {v} appears twice")
        out[v] = w
    if not any(out.values()):
        raise UserError("--weights: at least one weight must be above 0")
    return _in_range(out, "--weights")


def _in_range(table: dict[int, int], where: str) -> dict[int, int]:
    """Values and the weight total must fit the 64-bit integers the batch draws use."""
    for v in table:
        if not -(1 << 63) <= v < 1 << 63:
            raise UserError(f"{where}: value {v} is outside the 64-bit integer range")
    total = sum(table.values())
    if total >= 1 << 63:
        raise UserError(f"{where}: weights total {total}, must be below 2^63")
    return table


def _as_weights(raw: Any, where: str) -> dict[int, int]:
    if isinstance(raw, Mapping) and "default" in raw:  # a Rules Submission setting spec
        raw = raw["default"]
    if not isinstance(raw, Mapping):
        raise UserError(f"{where}: expected a table of value = weight")
    try:
        table = {int(k): int(v) for k, v in raw.items()}
    except (TypeError, ValueError):
        raise UserError(f"{where}: values and weights must be integers") from None
    if any(w < 0 for w in table.values()) or not any(table.values()):
        raise UserError(f"{where}: weights must be non-negative with a positive total")
    return _in_range(table, where)


def bingo_weights(
    what: str, rules_overrides: Mapping[str, Any], rules_file: Path
) -> dict[int, int]:
    """The ``target_weights`` or ``multiplier_weights`` the Bingo table would use.

    ``rules_file`` is Bingo's Rules Submission (the command line knows where it is).
    """
    key = f"{what}_weights"
    if key in rules_overrides:
        return _as_weights(rules_overrides[key], f"rules.{key}")
    if not rules_file.is_file():
        raise UserError(
            f"no {key}: {rules_file} does not exist; pass --weights VALUE:WEIGHT,..."
        )
    try:
        data = tomllib.loads(rules_file.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{rules_file}: cannot read: {exc}") from None
    for table in (data.get("settings", {}), data):
        if key in table:
            return _as_weights(table[key], f"{rules_file}: {key}")
    raise UserError(f"{rules_file} has no {key}; pass --weights VALUE:WEIGHT,...")


def outcomes(
    read: Callable[[int], bytes],
    what: str,
    n: int,
    *,
    weights: Mapping[int, int] | None = None,
    decks: int = 1,
    spanish: bool = False,
) -> Iterator[np.ndarray]:
    """Batches of outcomes: values (target, multiplier), card indexes, or shoes (rows)."""
    cards = deck(spanish=spanish)
    if what in ("target", "multiplier"):
        pairs = normalize_weights(weights or {})
        values = np.array([v for v, _ in pairs], dtype=np.int64)
        wts = [w for _, w in pairs]
    base = np.tile(np.arange(len(cards), dtype=np.int64), decks)
    per = max(1, CHUNK // len(base)) if what == "shuffle" else CHUNK
    left = n
    while left > 0:
        k = min(left, per)
        if what in ("target", "multiplier"):
            yield values[weighted_batch(read, wts, k)]
        elif what == "card":
            yield randbelow_batch(read, len(cards), k)
        elif what == "shuffle":
            yield shuffle_batch(read, base, k)
        else:
            raise UserError(f"--what must be one of {', '.join(WHAT)}")
        left -= k


def render(batch: np.ndarray, what: str, fmt: str, *, spanish: bool = False) -> bytes:
    """One batch in the chosen file format."""
    if fmt == "bin":
        if what in ("target", "multiplier") and (batch.min() < 0 or batch.max() > 255):
            raise UserError("--format bin holds values 0..255 only; use --format csv")
        return batch.astype(np.uint8).tobytes()
    if what in ("target", "multiplier"):
        return ("\n".join(map(str, batch.tolist())) + "\n").encode()
    codes = np.array(deck(spanish=spanish))
    if what == "card":
        return ("\n".join(codes[batch].tolist()) + "\n").encode()
    return ("\n".join(",".join(row) for row in codes[batch].tolist()) + "\n").encode()
