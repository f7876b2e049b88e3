"""The gaming day: drop, win and hold per table since the day began, and the day's chart.

A casino's accounting day starts at a fixed time of day (6:00 by default, a floor
setting), not at midnight. The meters a table reports are cumulative, so a day's figures
are the meters now minus the meters when the day began (the last ones the floor held
before it). Here, for an electronic table:

- **drop**: credits transferred in by the attendant (the table's buy-ins);
- **win**: what the table kept of what was wagered: coin in − coin out;
- **hold**: win ÷ drop.

The chart: the day's win and drop, cumulative, every :data:`SLOT_MINUTES` minutes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

SLOT_MINUTES = 15
SLOTS = 24 * 60 // SLOT_MINUTES


def parse_start(text: str) -> int:
    """``HH:MM`` → minutes after midnight (ValueError otherwise)."""
    hh, sep, mm = text.partition(":")
    if not sep or not hh.isdigit() or not mm.isdigit() or int(hh) > 23 or int(mm) > 59:
        raise ValueError(f"{text!r}: give the gaming day's start as HH:MM, e.g. 06:00")
    return int(hh) * 60 + int(mm)


def day_and_slot(at: float, start_minutes: int) -> tuple[str, int]:
    """The gaming day (its calendar date, in the floor's local time) and the slot of it
    that the Unix time ``at`` falls in."""
    local = dt.datetime.fromtimestamp(at) - dt.timedelta(minutes=start_minutes)
    minutes = local.hour * 60 + local.minute
    return local.date().isoformat(), minutes // SLOT_MINUTES


def day_start(day: str, start_minutes: int) -> float:
    """The Unix time a gaming day began."""
    d = dt.date.fromisoformat(day)
    return (dt.datetime(d.year, d.month, d.day) + dt.timedelta(minutes=start_minutes)) \
        .timestamp()


def figures(now: Mapping[str, Any] | None, opening: Mapping[str, Any] | None) -> dict[str, Any]:
    """Drop, win (cents) and hold (percent, None without a drop) since ``opening``."""
    now = now or {}
    opening = opening or {}

    def since(name: str) -> int:
        return int(now.get(name) or 0) - int(opening.get(name) or 0)

    drop = since("credits_in")
    win = since("wagered") - since("paid")
    return {"drop": drop, "win": win,
            "hold": round(100.0 * win / drop, 2) if drop > 0 else None}


def opening_of(meters: Mapping[str, Any] | None) -> dict[str, int]:
    """What a day's opening keeps of the meters."""
    return {k: int((meters or {}).get(k) or 0) for k in ("credits_in", "wagered", "paid")}
