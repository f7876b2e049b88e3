"""Every floor outbox row keyed with the journal's secret (issue 42, red team F8).

The outbox (firmware.journal.outbox) holds what the table reports to the floor, written in
the same transaction as the records it reports; it is not part of the keyed chain. Whoever
can write the journal file could otherwise change a waiting row — a $99,999 cash-out that
never happened, falsified meters — and the floor would store it as the table's word. So
each row's payload ends with a MAC, keyed with the table's secret, over its journal
record's number, its kind and the payload: the link sends only rows whose MAC holds (with
the MAC taken off: the floor's wire format is unchanged), and every start refuses a
journal with a row that does not verify, as it refuses any tampering.
"""

from __future__ import annotations

import hashlib
import hmac
import sqlite3

SUFFIX = ',"mac":"'
#: the MAC's part of a payload: ,"mac":"<64 hex>"}
TAIL = len(SUFFIX) + 64 + 2


def _mac(key: bytes | None, seq: int, kind: str, payload: str) -> str:
    msg = f"etg-outbox|{seq}|{kind}|{payload}".encode()
    if key is None:
        return hashlib.sha256(msg).hexdigest()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def sealed(key: bytes | None, seq: int, kind: str, payload: str) -> str:
    """``payload`` (a JSON object) with its MAC as the last member."""
    return f'{payload[:-1]}{SUFFIX}{_mac(key, seq, kind, payload)}"}}'


def opened(key: bytes | None, seq: int, kind: str, stored: str) -> str | None:
    """The payload as staged, or None when its MAC does not hold (forged or altered)."""
    if len(stored) <= TAIL or not stored.endswith('"}'):
        return None
    head, tail = stored[:-TAIL], stored[-TAIL:]
    if not tail.startswith(SUFFIX):
        return None
    payload = head + "}"
    if not hmac.compare_digest(tail[len(SUFFIX):-2], _mac(key, seq, kind, payload)):
        return None
    return payload


def outbox_problem(db: sqlite3.Connection, key: bytes | None) -> str | None:
    """The first outbox row whose MAC does not hold, said as a problem (None: all hold)."""
    for n, seq, kind, payload in db.execute(
            "SELECT n, seq, kind, payload FROM floor_outbox ORDER BY n"):
        if opened(key, int(seq), str(kind), str(payload)) is None:
            return (f"floor outbox message {n} (for record {seq}) is not what the table "
                    "staged: someone wrote a report for the floor the journal does not "
                    "hold")
    return None
