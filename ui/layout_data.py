"""The variation's layout data: what the felt must carry, as the engine derives it.

The UI never types a regulated inscription or a paytable: they come from
``firmware.engine.layout.layout_for(rules)`` (docs/interfaces.md), which derives them from
the Rules Submission in force. This module checks the shape of that data (a malformed
layout is a clear error, not a half-drawn table). The betting areas' printed names come
with it too (``wagers``: each wager's mechanism declares its label), so the UI holds no
list of wagers: a new wager gets its spot and its name from its own declaration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from etgcore.errors import UserError

#: the base game's areas: the main circle and the insurance line; every other betting
#: area is a side wager drawn as its own spot beside the main circle
BASE_AREAS = ("blackjack", "insurance")


@dataclass(frozen=True)
class Paytable:
    title: str
    rows: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Layout:
    """Checked layout data plus the certificate holder's name from the configuration."""

    title: str
    inscriptions: tuple[str, ...]
    paytables: tuple[Paytable, ...]
    betting_areas: tuple[str, ...]
    max_seats: int
    certificate_holder: str
    #: (area, printed name) of each betting area, as the layout data declares them
    labels: tuple[tuple[str, str], ...] = ()
    #: the round waits for an RNG draw: the draw's panel is drawn (Bingo)
    draw_panel: bool = False

    @property
    def key(self) -> tuple[Any, ...]:
        """Everything the static layer depends on (it is rebuilt when this changes)."""
        return (self.title, self.inscriptions, self.paytables, self.betting_areas,
                self.max_seats, self.certificate_holder, self.labels, self.draw_panel)

    @property
    def side_areas(self) -> tuple[str, ...]:
        """The side wagers' areas, in the layout's order: each gets its own spot."""
        return tuple(a for a in self.betting_areas if a not in BASE_AREAS)

    def label(self, kind: str) -> str:
        """The printed name of a betting area (a design label, not an inscription)."""
        return dict(self.labels).get(kind) or kind.replace("_", " ").upper()


def _str(data: Mapping[str, Any], key: str) -> str:
    v = data.get(key)
    if not isinstance(v, str):
        raise UserError(f"layout data: {key!r} must be a string, got {v!r}")
    return v


def parse_layout(data: Mapping[str, Any], certificate_holder: str) -> Layout:
    """Check ``layout_for`` output; raises UserError naming the bad field."""
    if not isinstance(data, Mapping):
        raise UserError(f"layout data must be a mapping, got {type(data).__name__}")
    title = _str(data, "title")
    ins = data.get("inscriptions")
    if not isinstance(ins, list | tuple) or not all(isinstance(s, str) for s in ins):
        raise UserError("layout data: 'inscriptions' must be a list of strings")
    tables: list[Paytable] = []
    for i, pt in enumerate(data.get("paytables") or []):
        if not isinstance(pt, Mapping):
            raise UserError(f"layout data: paytables[{i}] must be a mapping")
        rows = pt.get("rows")
        if not isinstance(rows, list | tuple) or not all(
            isinstance(r, list | tuple) and len(r) == 2 for r in rows
        ):
            raise UserError(f"layout data: paytables[{i}].rows must be [hand, odds] pairs")
        tables.append(Paytable(_str(pt, "title"), tuple((str(a), str(b)) for a, b in rows)))
    areas = data.get("betting_areas")
    if not isinstance(areas, list | tuple) or not all(isinstance(a, str) for a in areas):
        raise UserError("layout data: 'betting_areas' must be a list of wager kinds")
    seats = data.get("max_seats", 7)
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 7:
        raise UserError(f"layout data: 'max_seats' must be 1..7, got {seats!r}")
    labels = []
    for i, w in enumerate(data.get("wagers") or []):
        if not isinstance(w, Mapping) or not isinstance(w.get("label"), str):
            raise UserError(f"layout data: wagers[{i}] must be a mapping with a label")
        labels.append((_str(w, "name"), str(w["label"])))
    return Layout(title, tuple(ins), tuple(tables), tuple(areas), seats, certificate_holder,
                  tuple(labels), bool(data.get("draw_panel", False)))
