"""What a table tells the floor, derived from its journal records.

Only ``event`` and ``round`` records are reported, never ``input`` records (they hold
every card the moment the shoe reads it). A round record is written when the round is
over, so its cards are public by then — except the dealer's hole card of a round voided
before the rules revealed it, which is masked here exactly as on the table's display.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

from firmware.journal.meters import summarize
from firmware.journal.store import Record

MeterKey = tuple[str, int, str]


def dumps(body: Mapping[str, Any]) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def event_message(r: Record) -> dict[str, Any]:
    return {"seq": r.seq, "hash": r.hash, "ts_ns": r.ts_ns, "code": r.code,
            "round": r.round_no, "body": r.body}


def public_round(record: Mapping[str, Any]) -> dict[str, Any]:
    """The round record as the floor may see it: the hole card masked unless revealed."""
    out = copy.deepcopy(dict(record))
    dealer = out.get("dealer")
    if isinstance(dealer, dict) and not dealer.get("hole_revealed", True):
        cards = list(dealer.get("cards") or [])
        if len(cards) > 1:
            cards[1] = "??"
            dealer["cards"] = cards
            dealer["total"] = None
            dealer["soft"] = None
    return out


def round_message(r: Record) -> dict[str, Any]:
    return {"seq": r.seq, "hash": r.hash, "ts_ns": r.ts_ns, "round": r.round_no,
            "record": public_round(r.body)}


def meters_message(r: Record, meters: Mapping[MeterKey, int]) -> dict[str, Any]:
    return {"seq": r.seq, "hash": r.hash, "ts_ns": r.ts_ns, "meters": summarize(meters)}


def chain_message(r: Record) -> dict[str, Any]:
    return {"seq": r.seq, "hash": r.hash, "ts_ns": r.ts_ns, "head": r.hash}


def hold_percent(meters: Mapping[str, Any]) -> float | None:
    """The table's hold: what it kept of what was wagered, in percent (None before play)."""
    wagered = int(meters.get("wagered") or 0)
    if wagered <= 0:
        return None
    return round(100.0 * (wagered - int(meters.get("paid") or 0)) / wagered, 2)
