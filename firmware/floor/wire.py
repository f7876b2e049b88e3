"""What a table may send the floor, version 1: checked at the floor's edge.

Every MQTT message from a table is decoded here by the one schema
(:mod:`firmware.floor.schema`: msgspec, types, ranges, lengths and depth down to every
leaf) before anything is stored. What passes can be stored by any database the floor runs
on and shown by every page; what fails is a :class:`BadMessage`, rejected with its table
named, and never reaches the ledger. So a record the floor cannot take never stops the
floor, and a table that sends one is dealt with alone (quarantine, in the ledger).

The version: a message may carry ``"v"``; without it, it is version 1. A version this
floor does not know is refused, never guessed at. The limits are shared with the table's
floor link, which never sends more (a record too large to send goes as an ``oversize``
stub: the journal keeps the record, the floor is told it exists).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgspec

from firmware.floor import schema
from firmware.floor.errors import BadMessage
from firmware.floor.escape import one_line
from firmware.floor.topics import MAX_MESSAGE_BYTES, MAX_RECORD_BYTES

MAX_INT = schema.MAX_INT
MAX_CODE = schema.MAX_CODE
MAX_TEXT = schema.MAX_TEXT
MAX_SEATS = schema.MAX_SEATS
RECORD_KINDS = ("event", "round", "meters", "chain", "gap", "oversize")
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


def _decode(decoder: Any, payload: bytes, what: str) -> Any:
    if len(payload) > MAX_MESSAGE_BYTES:
        raise BadMessage(f"{len(payload)} bytes, more than {MAX_MESSAGE_BYTES}")
    try:
        got = decoder.decode(payload)
    except msgspec.ValidationError as exc:
        raise BadMessage(f"{what}: {_said(exc)}") from None
    except msgspec.DecodeError as exc:
        raise BadMessage(f"not JSON ({_said(exc)})") from None
    repeated_keys(payload, what)
    return got


_ANY = msgspec.json.Decoder()
_PLAIN = msgspec.json.Encoder()


class _Repeated(BadMessage):
    """A key twice in one object (raised from json's hook, turned into the message's)."""


def _pairs(pairs: list[tuple[str, Any]]) -> None:
    """Each object's keys, as written: a key twice is refused (None: nothing is built)."""
    if len(dict(pairs)) != len(pairs):
        keys = [k for k, _ in pairs]
        raise _Repeated(next(k for i, k in enumerate(keys) if k in keys[:i]))


def repeated_keys(payload: bytes, what: str) -> None:
    """A key written twice in one object, anywhere in the message, is a bad message.

    Why: JSON leaves a repeated key's meaning open and parsers differ (msgspec, like most,
    keeps the last; others the first), so ``{"cents": 100, "cents": 99999999}`` is $1.00
    to one reader and $999,999.99 to the floor — the floor must store what the table
    meant, and a message with two meanings has none. msgspec cannot tell (it sees the
    last), so the standard library's C scanner reads the message once more with a hook on
    each object's pairs, only after msgspec has accepted it (a refused message costs
    nothing more; what reaches here is bounded JSON, so this cannot fail otherwise).

    That hook costs more than the schema itself, so first a fast path that is just as
    sound: decoded untyped and encoded again by msgspec, a message that comes back byte
    for byte *is* the encoding of objects whose keys are unique (a dict holds a key once,
    and the encoder writes each once), so it cannot hold a key twice. A table's floor link
    writes compact JSON, as msgspec does, so its records take the fast path unless they
    hold non-ASCII text or a float written another way; anything else takes the hook.
    The cost is measured by ``python -m benchmarks floor-edge`` (docs/floor.md).
    """
    try:
        if _PLAIN.encode(_ANY.decode(payload)) == payload:
            return  # the fast path (below)
    except (msgspec.DecodeError, msgspec.EncodeError, TypeError, ValueError):
        pass
    try:
        json.loads(payload, object_pairs_hook=_pairs)
    except _Repeated as exc:
        raise BadMessage(f"{what}: the key {one_line(str(exc.args[0]))[:64]!r} twice in "
                         "one object (its meaning is open: refused)") from None
    except ValueError as exc:  # not reached: msgspec accepted it (a second net)
        raise BadMessage(f"not JSON ({_said(exc)})") from None


def _said(exc: Exception) -> str:
    """The library's words (they may quote a table's field name or text): one line, cut."""
    text = one_line(exc)
    return text if len(text) <= 300 else text[:297] + "..."


def _canonical(value: Any, what: str) -> str:
    text = schema.ENCODER.encode(value).decode()
    if len(text) > MAX_RECORD_BYTES:
        raise BadMessage(f"{what} is {len(text)} bytes, more than {MAX_RECORD_BYTES}")
    return text


def records(payload: bytes) -> list[WireRecord]:
    """A ``records`` message: a JSON array of 1..MAX_BATCH records, each checked."""
    got = _decode(schema.RECORDS, payload, "records")
    out = []
    for i, r in enumerate(got):
        try:
            out.append(_record(r))
        except BadMessage as exc:
            raise BadMessage(f"record {i + 1} of {len(got)}: {exc}") from None
    return out


def record(p: Any) -> WireRecord:
    """One record already parsed (a test's, a tool's): checked by the same schema."""
    try:
        r = msgspec.convert(p, schema.AnyRecord, strict=True)
    except msgspec.ValidationError as exc:
        raise BadMessage(_said(exc)) from None
    return _record(r)


def _record(r: Any) -> WireRecord:
    if isinstance(r, schema.GapRecord):
        return WireRecord("gap", r.n, 0, "", 0, from_n=r.from_n)
    if isinstance(r, schema.EventRecord):
        return WireRecord("event", r.n, r.seq, r.hash, r.ts_ns, code=r.code, round=r.round,
                          text=_canonical(r.body, "the event's body"))
    if isinstance(r, schema.RoundRecord):
        try:
            msgspec.convert(r.record, schema.RoundView, strict=True)
        except msgspec.ValidationError as exc:
            raise BadMessage(f"the round record: {_said(exc)}") from None
        return WireRecord("round", r.n, r.seq, r.hash, r.ts_ns, round=r.round,
                          text=_canonical(r.record, "the round record"))
    if isinstance(r, schema.MetersRecord):
        m = msgspec.to_builtins(r.meters)
        return WireRecord("meters", r.n, r.seq, r.hash, r.ts_ns, meters=m,
                          text=_canonical(m, "meters"))
    if isinstance(r, schema.ChainRecord):
        return WireRecord("chain", r.n, r.seq, r.hash, r.ts_ns, head=r.head)
    assert isinstance(r, schema.OversizeRecord)
    return WireRecord("oversize", r.n, r.seq, r.hash, r.ts_ns,
                      text=_canonical({"of": r.of, "bytes": r.bytes}, "stub"))


def meters(m: Any) -> dict[str, Any]:
    """The ``etg meters --json`` shape, checked by the schema (nothing else kept)."""
    try:
        return msgspec.to_builtins(msgspec.convert(m, schema.Meters, strict=True))
    except msgspec.ValidationError as exc:
        raise BadMessage(f"meters: {_said(exc)}") from None


def status(payload: bytes) -> dict[str, Any]:
    """A table's status, as the schema decoded it (no unknown field passes)."""
    s = _decode(schema.STATUS, payload, "status")
    out: dict[str, Any] = msgspec.to_builtins(s)
    out.pop("v", None)
    out["seq"] = out["seq"] or 0
    for k in ("ts", "sent"):
        if out[k] is not None:
            out[k] = float(out[k])
    return out


def signature(payload: bytes) -> dict[str, Any]:
    """A table's answer to a software authentication request."""
    out: dict[str, Any] = msgspec.to_builtins(_decode(schema.SIGNATURE, payload,
                                                      "signature answer"))
    out.pop("v", None)
    return out
