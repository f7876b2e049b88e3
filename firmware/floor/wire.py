"""What a table may send the floor, version 1: checked at the floor's edge, field by field.

Every MQTT message from a table is checked here before anything is stored: its size, its
JSON, each field's type, range and length. What passes can be stored by any database the
floor runs on (64-bit integers, bounded texts, no value the store could refuse); what fails
is a :class:`BadMessage`, rejected with its table named, and never reaches the ledger. So a
record the floor cannot store never stops the floor, and a table that sends one is dealt
with alone (:mod:`firmware.floor.quarantine`).

The version: a message may carry ``"v"``; without it, it is version 1 (every table before
the number was introduced sent exactly this shape). A version this floor does not know is
refused, never guessed at. The limits below are shared with the table's floor link, which
never sends more (a record too large to send goes as an ``oversize`` stub: the journal
keeps the record, the floor is told it exists).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import orjson

from firmware.floor.errors import BadMessage
from firmware.floor.topics import MAX_BATCH, MAX_MESSAGE_BYTES, MAX_RECORD_BYTES, VERSION

MAX_INT = 2**63 - 1  # BIGINT
MAX_CODE = 2**31 - 1  # INTEGER
MAX_TEXT = 200
MAX_SEATS = 16
RECORD_KINDS = ("event", "round", "meters", "chain", "gap", "oversize")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_COUNTERS = ("games_played", "games_voided", "wagered", "paid", "credits_in", "credits_out")
METER_FIELDS = (*_COUNTERS, "credits")


@dataclass(frozen=True, slots=True)
class WireRecord:
    """One checked record of a table's outbox. ``text`` is the canonical JSON the floor
    stores (the event's body, the round's record, the meters, or the stub's facts)."""

    kind: str
    n: int
    seq: int
    hash: str
    ts_ns: int
    code: int | None = None
    round: int | None = None
    text: str = ""
    meters: dict[str, Any] | None = None
    head: str = ""
    from_n: int = 0  # a gap: the first missing message number (``n`` is the last)


def _int(p: dict[str, Any], key: str, lo: int = 0, hi: int = MAX_INT,
         optional: bool = False) -> Any:
    v = p.get(key)
    if v is None and optional:
        return None
    if type(v) is not int or not lo <= v <= hi:
        raise BadMessage(f"{key} must be an integer {lo}..{hi}, not {_show(v)}")
    return v


def _hex(p: dict[str, Any], key: str, optional: bool = False) -> Any:
    v = p.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, str) or not _HEX64.fullmatch(v):
        raise BadMessage(f"{key} must be 64 lowercase hex digits, not {_show(v)}")
    return v


def _text(p: dict[str, Any], key: str, limit: int = MAX_TEXT) -> str | None:
    v = p.get(key)
    if v is None:
        return None
    if not isinstance(v, str) or len(v) > limit:
        raise BadMessage(f"{key} must be text of at most {limit} characters, not {_show(v)}")
    return v


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _canonical(value: Any, what: str) -> str:
    text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    if len(text) > MAX_RECORD_BYTES:
        raise BadMessage(f"{what} is {len(text)} bytes, more than {MAX_RECORD_BYTES}")
    return text


def _version(p: dict[str, Any]) -> None:
    v = p.get("v", VERSION)
    if v != VERSION:
        raise BadMessage(f"schema version {_show(v)}: this floor speaks version {VERSION}")


def parse(payload: bytes) -> Any:
    """The JSON of one message, refused when too large or not JSON."""
    if len(payload) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"{len(payload)} bytes, more than {MAX_MESSAGE_BYTES}")
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        raise BadMessage(f"not JSON ({str(exc).split(':', 1)[0]})") from None


def records(payload: bytes) -> list[WireRecord]:
    """A ``records`` message: a JSON array of 1..:data:`MAX_BATCH` records, each checked."""
    doc = parse(payload)
    if not isinstance(doc, list) or not 1 <= len(doc) <= MAX_BATCH:
        raise BadMessage(f"records must be an array of 1 to {MAX_BATCH} records")
    out = []
    for i, r in enumerate(doc):
        try:
            out.append(record(r))
        except BadMessage as exc:
            raise BadMessage(f"record {i + 1} of {len(doc)}: {exc}") from None
    return out


def record(p: Any) -> WireRecord:
    if not isinstance(p, dict):
        raise BadMessage("a record must be a JSON object")
    _version(p)
    kind = p.get("kind")
    if kind not in RECORD_KINDS:
        raise BadMessage(f"unknown record kind {_show(kind)}")
    n = _int(p, "n", 1)
    if kind == "gap":
        first = _int(p, "from_n", 1, n)
        return WireRecord("gap", n, 0, "", 0, from_n=first)
    seq, digest, ts = _int(p, "seq", 1), _hex(p, "hash"), _int(p, "ts_ns")
    if kind == "event":
        if not isinstance(p.get("body"), dict):
            raise BadMessage("an event's body must be a JSON object")
        return WireRecord(kind, n, seq, digest, ts, code=_int(p, "code", 0, MAX_CODE, True),
                          round=_int(p, "round", optional=True),
                          text=_canonical(p["body"], "the event's body"))
    if kind == "round":
        if not isinstance(p.get("record"), dict):
            raise BadMessage("a round's record must be a JSON object")
        return WireRecord(kind, n, seq, digest, ts, round=_int(p, "round", optional=True),
                          text=_canonical(p["record"], "the round record"))
    if kind == "meters":
        m = meters(p.get("meters"))
        return WireRecord(kind, n, seq, digest, ts, meters=m, text=_canonical(m, "meters"))
    if kind == "chain":
        return WireRecord(kind, n, seq, digest, ts, head=_hex(p, "head"))
    of = p.get("of")
    if of not in ("event", "round", "meters", "chain"):
        raise BadMessage(f"an oversize stub's 'of' must name a record kind, not {_show(of)}")
    size = _int(p, "bytes", 0)
    return WireRecord(kind, n, seq, digest, ts, text=_canonical({"of": of, "bytes": size},
                                                                 "stub"))


def _figures(m: Any, names: tuple[str, ...], what: str) -> dict[str, int]:
    if not isinstance(m, dict):
        raise BadMessage(f"{what} must be a JSON object")
    out = {}
    for k in names:
        v = m.get(k, 0)
        if type(v) is not int or abs(v) > MAX_INT:
            raise BadMessage(f"{what}: {k} must be an integer, not {_show(v)}")
        out[k] = v
    return out


def meters(m: Any) -> dict[str, Any]:
    """The ``etg meters --json`` shape, rebuilt from what was checked (nothing else kept).
    Negative or falling values pass here: they are the plausibility check's alarm."""
    out: dict[str, Any] = _figures(m, METER_FIELDS, "meters")
    out["balanced"] = m.get("balanced") is True
    seats = m.get("seats", [])
    if not isinstance(seats, list) or len(seats) > MAX_SEATS:
        raise BadMessage(f"meters: seats must be a list of at most {MAX_SEATS}")
    out["seats"] = []
    for s in seats:
        row: dict[str, Any] = _figures(s, ("seat", "games_played", "wagered", "paid",
                                           "credits_in", "credits_out", "credits"),
                                       "a seat's meters")
        row["by_wager"] = _by_wager(s.get("by_wager", {}))
        out["seats"].append(row)
    out["by_wager"] = _by_wager(m.get("by_wager", {}))
    return out


def _by_wager(b: Any) -> dict[str, dict[str, int]]:
    if not isinstance(b, dict) or len(b) > 32:
        raise BadMessage("meters: by_wager must be an object of at most 32 wager kinds")
    out = {}
    for k, v in b.items():
        if len(k) > 64:
            raise BadMessage("meters: a wager kind's name is longer than 64 characters")
        out[k] = _figures(v, ("wagered", "paid"), f"meters of wager {_show(k)}")
    return out


def status(payload: bytes) -> dict[str, Any]:
    """A table's status, rebuilt from its checked fields (unknown fields are not kept)."""
    p = parse(payload)
    if not isinstance(p, dict):
        raise BadMessage("a status must be a JSON object")
    _version(p)
    tilt = p.get("tilt")
    if tilt is not None:
        if not isinstance(tilt, dict):
            raise BadMessage("tilt must be null or an object")
        tilt = {"cause": _text(tilt, "cause"), "code": _text(tilt, "code")}
    sw = p.get("software")
    if sw is not None:
        if not isinstance(sw, dict):
            raise BadMessage("software must be null or an object")
        sw = {k: _text(sw, k) for k in ("version", "config", "release")}
    closed, simulated = p.get("closed", False), p.get("simulated", False)
    if type(closed) is not bool or type(simulated) is not bool:
        raise BadMessage("closed and simulated must be true or false")
    return {"variant": _text(p, "variant", 64), "phase": _text(p, "phase", 64),
            "round": _int(p, "round", optional=True), "tilt": tilt,
            "failure": _text(p, "failure", 500), "closed": closed, "software": sw,
            "holding": _text(p, "holding", 500),
            "seq": _int(p, "seq", optional=True) or 0, "head": _hex(p, "head", True),
            "ts": _time(p, "ts"), "sent": _time(p, "sent"), "simulated": simulated}


def _time(p: dict[str, Any], key: str) -> float | None:
    v = p.get(key)
    if v is None:
        return None
    if type(v) not in (int, float) or not math.isfinite(v) or not 0 <= v < 2**40:
        raise BadMessage(f"{key} must be a Unix time in seconds, not {_show(v)}")
    return float(v)


def signature(payload: bytes) -> dict[str, Any]:
    """A table's answer to a software authentication request."""
    p = parse(payload)
    if not isinstance(p, dict):
        raise BadMessage("a signature answer must be a JSON object")
    _version(p)
    return {"id": _text(p, "id", 64), "hmac": _hex(p, "hmac", optional=True),
            "files": _int(p, "files", optional=True), "error": _text(p, "error", 500),
            "release": _text(p, "release")}
