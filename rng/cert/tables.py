"""What an outcome can be and how likely each value is: targets, multipliers, cards.

The battery works on category *indexes* 0..k-1 with exact integer weights; this module
turns the tokens of a draw file (``17``, ``10``/``10x``, ``TD``) into indexes and finds
the configured weights. The Bingo weights are the Rules Submission's
``target_weights`` and ``multiplier_weights`` (docs/rules.md §3), read from
``firmware/rules/bingo.toml`` with any ``[rules]`` override of the table configuration
applied; cards are uniform over the 52 (or 48 Spanish) card codes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from etgcore.cards import deck
from etgcore.errors import UserError

TARGETS = tuple(range(12, 22))  # § 633b.28(e)(1)
MULTIPLIERS = (2, 5, 10, 25, 50, 100)  # § 633b.28(e)(2)
#: One unshuffled deck (spades A..K, hearts, diamonds, clubs), as rng.shoe deals it.
CARDS = tuple(deck())
KINDS = ("target", "multiplier", "card", "shuffle")


@dataclass(frozen=True)
class OutcomeTable:
    """The k values of one kind of outcome, as file tokens, and their integer weights."""

    kind: str
    labels: tuple[str, ...]
    weights: tuple[int, ...]

    @property
    def k(self) -> int:
        return len(self.labels)

    @property
    def probabilities(self) -> npt.NDArray[np.float64]:
        w = np.asarray(self.weights, dtype=np.float64)
        return w / w.sum()

    @property
    def title(self) -> str:
        return {"target": "Bingo targets", "multiplier": "Bingo multipliers",
                "card": "Card draws"}.get(self.kind, self.kind)

    def describe(self) -> str:
        if len(set(self.weights)) == 1:
            return f"uniform over the {self.k} values {self.labels[0]}..{self.labels[-1]}"
        return ", ".join(f"{lab}:{w}" for lab, w in zip(self.labels, self.weights, strict=True))


def card_table(*, spanish: bool = False) -> OutcomeTable:
    labels = tuple(c for c in CARDS if not (spanish and c[0] == "T"))
    return OutcomeTable("card", labels, (1,) * len(labels))


def bingo_table(kind: str, weights: Mapping[int, int] | Sequence[int]) -> OutcomeTable:
    """A target or multiplier table from {value: weight} or weights in value order."""
    values = TARGETS if kind == "target" else MULTIPLIERS
    if isinstance(weights, Mapping):
        extra = sorted(set(weights) - set(values))
        if extra:
            raise UserError(f"{kind} weights: {extra[0]} is not a {kind} value "
                            f"(allowed: {', '.join(map(str, values))})")
        w = [int(weights.get(v, 0)) for v in values]
    else:
        w = [int(x) for x in weights]
        if len(w) != len(values):
            raise UserError(f"{kind} weights: need {len(values)} weights, one per value "
                            f"{', '.join(map(str, values))}; got {len(w)}")
    if any(x < 0 for x in w) or sum(w) <= 0:
        raise UserError(f"{kind} weights must be non-negative integers with a positive total")
    return OutcomeTable(kind, tuple(str(v) for v in values), tuple(w))


def parse_weights(kind: str, text: str) -> OutcomeTable:
    """``--weights``: ``12:5,13:7,...`` (as ``etg rng draws``), ``12=5,...``, or ``5,7,...``.

    The last form gives one weight per value in value order (12..21; 2, 5, 10, 25, 50, 100).
    """
    if kind not in ("target", "multiplier"):
        raise UserError("--weights applies to --what target or multiplier only")
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise UserError("--weights: empty")
    if all(":" in p or "=" in p for p in parts):
        from rng.lab import parse_weights as parse_pairs

        table = parse_pairs(",".join(p.replace("=", ":") for p in parts))
        return bingo_table(kind, table)
    try:
        return bingo_table(kind, [int(p) for p in parts])
    except ValueError:
        raise UserError(f"--weights: expected VALUE:WEIGHT pairs or integer weights, got "
                        f"{text!r}") from None


def configured_bingo_tables(rules_file: Path, rules_overrides: Mapping[str, Any] | None = None,
                            ) -> tuple[OutcomeTable, OutcomeTable] | None:
    """The Rules Submission's (target, multiplier) tables, or None if there is none.

    The same lookup as ``etg rng draws`` (:func:`rng.lab.bingo_weights`): the table
    configuration's ``[rules]`` override wins over the Rules Submission ``rules_file``.
    """
    from rng.lab import bingo_weights

    over = rules_overrides or {}
    path = rules_file
    out = []
    for kind in ("target", "multiplier"):
        if f"{kind}_weights" not in over and not path.is_file():
            return None
        out.append(bingo_table(kind, bingo_weights(kind, over, path)))
    return out[0], out[1]


def token_index(table: OutcomeTable) -> dict[bytes, int]:
    """File token -> category index (multipliers also as ``10x``)."""
    idx = {lab.encode("ascii"): i for i, lab in enumerate(table.labels)}
    if table.kind == "multiplier":
        idx.update({lab.encode("ascii") + b"x": i for i, lab in enumerate(table.labels)})
    return idx
