"""The one schema of what a table may send the floor, version 1, down to every leaf.

Every message is decoded by one library (msgspec) straight from its bytes into these types:
parsing and checking are one pass, with one depth limit — the schema's own. Each field has
its type, range and length; a record's free content (an event's ``body``, a round's
``record``) is a bounded JSON object: at most :data:`MAX_DEPTH` levels of objects and
arrays, each of at most :data:`MAX_ITEMS` items, keys of at most 64 characters, texts of at
most :data:`MAX_LEAF_TEXT`, integers within 64 bits, decimals finite and within ±10^15.
Nothing deeper, longer or larger can be written down in the type, so nothing of it
reaches the store, the ledger, the hub or a page: what this module accepts, every later
stage can take (the property test in ``tests/floor/test_floor_schema.py`` runs generated
messages through all of them).

Why msgspec rather than pydantic v2 (strict): both are well kept and strict; msgspec
decodes bytes into typed structs in one C pass with no dependency of its own, and decoded
a round's records message in about half pydantic's time on the same messages (pydantic
also brings three packages more); with the checks and the canonical JSON the floor stores,
the edge costs what bc5b817's hand-written checks did — about 9 % of one core at 1,000
tables (``python -m benchmarks floor-edge``). The floor decodes every message of every
table on one thread, so per-message cost is the floor's capacity.
docs/floor.md, "The floor's edge", has the figures.

Unknown fields are refused (a table of this version sends exactly these); a new field is
a new version (``"v"``), never guessed at. A key written twice in one object is refused
too, by :func:`firmware.floor.wire.repeated_keys` (msgspec keeps the last and cannot tell).
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from firmware.floor.topics import MAX_BATCH

MAX_INT = 2**63 - 1  # BIGINT
MAX_CODE = 2**31 - 1  # INTEGER
MAX_TEXT = 200
MAX_SEATS = 16
#: levels of objects and arrays in a record's free content, the top object included
MAX_DEPTH = 7
#: items of one array or object in that content
MAX_ITEMS = 1000
MAX_LEAF_TEXT = 2000
MAX_KEY = 64
#: decimals in free content: finite and within this (a time, a duration, a ratio)
MAX_DECIMAL = 1e15

Count = Annotated[int, Meta(ge=0, le=MAX_INT)]
Positive = Annotated[int, Meta(ge=1, le=MAX_INT)]
Signed = Annotated[int, Meta(ge=-MAX_INT, le=MAX_INT)]
#: a meter or a seat's net (cents, or games): within ±10^15 ($10 trillion), so that any
#: difference or sum the floor forms of them (the day's drop and win, a win of wagered −
#: paid, a floor's total) stays within 64 bits — a table reporting 2^63 − 1 wagered and
#: −(2^63 − 1) paid once overflowed the database's integer
MAX_AMOUNT = 10**15
Amount = Annotated[int, Meta(ge=-MAX_AMOUNT, le=MAX_AMOUNT)]
Code = Annotated[int, Meta(ge=0, le=MAX_CODE)]
Hex64 = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
#: no text has a NUL: PostgreSQL refuses it, and a page would carry it raw
_NO_NUL = "^[^\x00]*$"
Text = Annotated[str, Meta(max_length=MAX_TEXT, pattern=_NO_NUL)]
Text64 = Annotated[str, Meta(max_length=64, pattern=_NO_NUL)]
Text500 = Annotated[str, Meta(max_length=500, pattern=_NO_NUL)]
#: a Unix time in seconds (before the year 36812: any later is no clock's)
UnixTime = Annotated[float, Meta(ge=0, lt=2**40)]
Key = Annotated[str, Meta(max_length=MAX_KEY, pattern=_NO_NUL)]
SeatNo = Annotated[int, Meta(ge=0, le=64)]

# -- bounded free content: MAX_DEPTH levels, written out (no recursion, so no deeper):
# the top object is level 1, V2 a value at level 2, ..., V8 a leaf inside level 7 ----
LeafText = Annotated[str, Meta(max_length=MAX_LEAF_TEXT, pattern=_NO_NUL)]
Decimal = Annotated[float, Meta(ge=-MAX_DECIMAL, le=MAX_DECIMAL)]
Leaf = None | bool | Signed | Decimal | LeafText
V8 = Leaf
V7 = (Leaf | Annotated[list[V8], Meta(max_length=MAX_ITEMS)]
      | Annotated[dict[Key, V8], Meta(max_length=MAX_ITEMS)])
V6 = (Leaf | Annotated[list[V7], Meta(max_length=MAX_ITEMS)]
      | Annotated[dict[Key, V7], Meta(max_length=MAX_ITEMS)])
V5 = (Leaf | Annotated[list[V6], Meta(max_length=MAX_ITEMS)]
      | Annotated[dict[Key, V6], Meta(max_length=MAX_ITEMS)])
V4 = (Leaf | Annotated[list[V5], Meta(max_length=MAX_ITEMS)]
      | Annotated[dict[Key, V5], Meta(max_length=MAX_ITEMS)])
V3 = (Leaf | Annotated[list[V4], Meta(max_length=MAX_ITEMS)]
      | Annotated[dict[Key, V4], Meta(max_length=MAX_ITEMS)])
V2 = (Leaf | Annotated[list[V3], Meta(max_length=MAX_ITEMS)]
      | Annotated[dict[Key, V3], Meta(max_length=MAX_ITEMS)])
Content = Annotated[dict[Key, V2], Meta(max_length=MAX_ITEMS)]

Version = Literal[1]


# -- the meters (`etg meters --json`) ------------------------------------------------------

class WagerMeters(Struct, forbid_unknown_fields=True):
    wagered: Amount = 0
    paid: Amount = 0


ByWager = Annotated[dict[Key, WagerMeters], Meta(max_length=32)]


class SeatMeters(Struct, forbid_unknown_fields=True):
    seat: SeatNo
    games_played: Amount = 0
    wagered: Amount = 0
    paid: Amount = 0
    credits_in: Amount = 0
    credits_out: Amount = 0
    credits: Amount = 0
    by_wager: ByWager = {}


class Meters(Struct, forbid_unknown_fields=True):
    """Negative or falling figures pass here: they are the plausibility check's alarm."""

    games_played: Amount = 0
    games_voided: Amount = 0
    wagered: Amount = 0
    paid: Amount = 0
    credits_in: Amount = 0
    credits_out: Amount = 0
    credits: Amount = 0
    balanced: bool | None = None  # the table's own check (absent: not said)
    seats: Annotated[list[SeatMeters], Meta(max_length=MAX_SEATS)] = []
    by_wager: ByWager = {}


# -- records --------------------------------------------------------------------------------

class _Numbered(Struct, tag_field="kind", forbid_unknown_fields=True, kw_only=True):
    n: Positive
    seq: Positive
    hash: Hex64
    ts_ns: Count
    v: Version = 1


class EventRecord(_Numbered, tag="event"):
    body: Content
    code: Code | None = None
    round: Count | None = None


class RoundRecord(_Numbered, tag="round"):
    record: Content
    round: Count | None = None


class MetersRecord(_Numbered, tag="meters"):
    meters: Meters


class ChainRecord(_Numbered, tag="chain"):
    head: Hex64


class OversizeRecord(_Numbered, tag="oversize"):
    of: Literal["event", "round", "meters", "chain"]
    bytes: Count


class GapRecord(Struct, tag_field="kind", tag="gap", forbid_unknown_fields=True,
                kw_only=True):
    n: Positive
    from_n: Positive
    v: Version = 1

    def __post_init__(self) -> None:
        if self.from_n > self.n:
            raise ValueError(f"a gap's from_n ({self.from_n}) is after its n ({self.n})")


AnyRecord = (EventRecord | RoundRecord | MetersRecord | ChainRecord | OversizeRecord
             | GapRecord)
Records = Annotated[list[AnyRecord], Meta(min_length=1, max_length=MAX_BATCH)]


# -- the fields of a round record the pit reads (checked on top of the bounded content) --

Card = Annotated[str, Meta(max_length=4)]


class DealerView(Struct):
    cards: Annotated[list[Card], Meta(max_length=32)] | None = None
    total: Annotated[int, Meta(ge=0, le=1000)] | None = None


class SeatView(Struct):
    seat: SeatNo | None = None
    net: Amount | None = None


class RoundView(Struct):
    """What :func:`firmware.floor.pit_text.round_line` reads of a round record; the rest
    of the record is bounded content, stored as reported."""

    round: Count | None = None
    state: Text64 | None = None
    variant: Text64 | None = None
    dealer: DealerView | None = None
    seats: Annotated[list[SeatView], Meta(max_length=MAX_SEATS)] | None = None


# -- status and software answers ---------------------------------------------------------

class Tilt(Struct, forbid_unknown_fields=True):
    cause: Text | None = None
    code: Text | None = None


class Software(Struct, forbid_unknown_fields=True):
    version: Text | None = None
    config: Text | None = None
    release: Text | None = None


class Status(Struct, forbid_unknown_fields=True):
    v: Version = 1
    variant: Text64 | None = None
    phase: Text64 | None = None
    round: Count | None = None
    tilt: Tilt | None = None
    failure: Text500 | None = None
    closed: bool = False
    software: Software | None = None
    holding: Text500 | None = None
    seq: Count | None = None
    head: Hex64 | None = None
    ts: UnixTime | None = None
    sent: UnixTime | None = None
    simulated: bool = False


class Signature(Struct, forbid_unknown_fields=True, kw_only=True):
    id: Text64
    v: Version = 1
    hmac: Hex64 | None = None
    files: Count | None = None
    error: Text500 | None = None
    release: Text | None = None


RECORDS = msgspec.json.Decoder(Records)
STATUS = msgspec.json.Decoder(Status)
SIGNATURE = msgspec.json.Decoder(Signature)
ENCODER = msgspec.json.Encoder(order="sorted")
