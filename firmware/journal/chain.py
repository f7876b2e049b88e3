"""The journal's hash chain: the one spelling of a record that the chain covers, and
each record's chain value.

Each record's value is HMAC-SHA256, keyed with the table's secret
(:mod:`firmware.journal.key`), over the previous record's value and the record's own
fields; plain SHA-256 without a key (the unkeyed chain the benchmark compares against).
Changing, inserting, removing or reordering a record breaks every value after it, and
without the secret nobody can recompute them after an edit. Every record also names the
end of the transaction it was committed in (its commit marker), so the verifier knows
exactly where each transaction ends: the database may be ahead of its head file by one
whole transaction (a power cut between the commit and the head write), never more, and
never by part of one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

GENESIS = "0" * 64

def canonical(body: Mapping[str, Any]) -> str:
    """The one JSON spelling of a body that the chain covers."""
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def record_hash(
    prev: str, seq: int, ts_ns: int, kind: str, code: int | None, round_no: int | None,
    txn_last: int, body: str, key: bytes | None = None,
) -> str:
    """The chain value of one record: HMAC-SHA256 with the table's secret (plain SHA-256
    without one: the unkeyed chain the benchmark compares against). ``txn_last``, the
    commit marker (the last sequence number of the record's transaction), is inside it:
    where a transaction ends cannot be edited either."""
    msg = b"".join((
        bytes.fromhex(prev),
        f"{seq}|{ts_ns}|{kind}|{'' if code is None else code}|"
        f"{'' if round_no is None else round_no}|{txn_last}|".encode("ascii"),
        body.encode("ascii"),
    ))
    if key is None:
        return hashlib.sha256(msg).hexdigest()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


#: SHA-256's block size: an HMAC key is padded (or first hashed) to it
_BLOCK = 64
RecordHasher = Callable[[str, int, int, str, "int | None", "int | None", int, str], str]


def record_hasher(key: bytes) -> RecordHasher:
    """:func:`record_hash` with ``key`` bound, for walking a whole chain: HMAC-SHA256
    (RFC 2104) from two SHA-256 states keyed once and copied per record, the message in
    one update. WHY not ``hmac.HMAC.copy()``: its Python wrapper was a third of a start's
    walk of 2 million records; these are the same bytes, in C calls only."""
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key)).copy
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key)).copy
    fromhex = bytes.fromhex

    def digest(prev: str, seq: int, ts_ns: int, kind: str, code: int | None,
               round_no: int | None, txn_last: int, body: str) -> str:
        h = inner()
        h.update(fromhex(prev) + f"{seq}|{ts_ns}|{kind}|{'' if code is None else code}|"
                 f"{'' if round_no is None else round_no}|{txn_last}|{body}".encode("ascii"))
        o = outer()
        o.update(h.digest())
        return o.hexdigest()

    return digest


@dataclass(frozen=True)
class Entry:
    """One record to append; several are written in one transaction by
    :meth:`firmware.journal.store.Journal.append`."""

    kind: str
    body: Mapping[str, Any]
    round_no: int | None = None
    code: int | None = None


@dataclass(frozen=True, slots=True)
class Record:
    seq: int
    ts_ns: int
    kind: str
    code: int | None
    round_no: int | None
    body: dict[str, Any]
    prev: str
    hash: str
    #: the commit marker: the last sequence number of the transaction that wrote this
    #: record (== seq for the transaction's last record)
    txn_last: int
