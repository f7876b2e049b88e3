"""The journal's format on the storage: the tables, their version, and the refusals of a
file that is not (or no longer) a journal this firmware writes.

Apart from firmware.journal.store so the format has one short place to read when a
journal is examined as evidence, and so the record store holds only the writing and
reading of records.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from firmware.journal import key as journal_key
from firmware.journal.errors import BlankJournal, JournalError, OldJournalFormat

#: 3: a keyed chain (HMAC-SHA256) and the head file outside the database; 2: decision
#: inputs number a seat's hands from 1 (they counted from 0 in schema 1, which this engine
#: would replay wrongly). An older journal is refused with the reason, never replayed.
SCHEMA_VERSION = 3

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq      INTEGER PRIMARY KEY,
    ts_ns    INTEGER NOT NULL,
    kind     TEXT    NOT NULL,
    code     INTEGER,
    round_no INTEGER,
    body     TEXT    NOT NULL,
    prev     TEXT    NOT NULL,
    hash     TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS records_kind ON records(kind, seq);
CREATE INDEX IF NOT EXISTS records_round ON records(round_no, seq);
CREATE TABLE IF NOT EXISTS meters (
    name  TEXT    NOT NULL,
    seat  INTEGER NOT NULL,   -- 0: the whole table
    wager TEXT    NOT NULL,   -- '' : all wager kinds
    value INTEGER NOT NULL,
    PRIMARY KEY (name, seat, wager)
);
CREATE TABLE IF NOT EXISTS info (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""





def create_schema(db: sqlite3.Connection, key: bytes | None) -> None:
    """The tables and the journal's facts in ONE transaction: a kill -9 while a journal
    is created leaves a whole journal or an empty file, never half a schema."""
    chain = "sha256" if key is None else "hmac-sha256"
    key_id = "" if key is None else journal_key.key_id(key)
    db.executescript(
        "BEGIN IMMEDIATE;" + SCHEMA
        + f"INSERT OR IGNORE INTO info(key, value) VALUES('schema', '{SCHEMA_VERSION}');"
        f"INSERT OR IGNORE INTO info(key, value) VALUES('chain', '{chain}');"
        f"INSERT OR IGNORE INTO info(key, value) VALUES('key_id', '{key_id}');"
        "COMMIT;")


def check_schema(db: sqlite3.Connection, path: Path) -> None:
    """Refuse what is not a journal of :data:`SCHEMA_VERSION` (with the reason)."""
    try:
        row = db.execute("SELECT value FROM info WHERE key='schema'").fetchone()
    except sqlite3.OperationalError:  # no info table: an SQLite file, not a journal
        row = None
    if row is None:
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if not tables:
            raise BlankJournal(f"{path}: the journal holds no record (an empty "
                               "database: its creation was cut short)")
        raise JournalError(f"{path}: not a journal (no schema record)")
    if int(row[0]) in (1, 2):
        raise OldJournalFormat(
            f"{path}: a journal of format {row[0]} (an unkeyed chain) from older "
            f"firmware; this firmware keeps format {SCHEMA_VERSION}: keep it as evidence "
            "elsewhere and start a new one (etg journal init --reason ...)")
    if int(row[0]) != SCHEMA_VERSION:
        raise JournalError(f"{path}: journal schema {row[0]}, expected {SCHEMA_VERSION}")
