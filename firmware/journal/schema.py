"""The journal's format on the storage: the tables, their version, the exact set of
schema objects a journal may hold, and the refusals of a file that is not (or no longer)
a journal this firmware writes.

Apart from firmware.journal.store so the format has one short place to read when a
journal is examined as evidence, and so the record store holds only the writing and
reading of records.

**Only our schema.** SQLite runs whatever the file's schema says on every write: a
trigger planted in the journal (``BEFORE INSERT ... RAISE(IGNORE)``) makes inserts vanish
without an error, a table re-declared ``ON CONFLICT IGNORE`` or ``REPLACE`` does the same,
an index or view changes nothing yet proves someone edited the file. So every verification
(``etg audit verify``, every start) compares the schema objects — tables, indexes,
triggers, views, with their SQL text — with the set this module's :data:`SCHEMA` makes, and
refuses anything else (:func:`foreign_objects`); the writer checks again whenever the
schema cookie changes while it runs (``PRAGMA schema_version``, read in every append).
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path

from firmware.journal import key as journal_key
from firmware.journal.errors import BlankJournal, JournalDamaged, JournalError, OldJournalFormat

#: 4: a commit marker in every record (``txn_last``, inside the keyed hash), the floor
#: outbox in the base schema, checkpoints; 3: a keyed chain (HMAC-SHA256) and the head file
#: outside the database; 2: decision inputs number a seat's hands from 1 (they counted from
#: 0 in schema 1, which this engine would replay wrongly). An older journal is refused
#: with the reason, never replayed.
SCHEMA_VERSION = 4
OLD_VERSIONS = (1, 2, 3)

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq      INTEGER PRIMARY KEY,
    ts_ns    INTEGER NOT NULL,
    kind     TEXT    NOT NULL,
    code     INTEGER,
    round_no INTEGER,
    body     TEXT    NOT NULL,
    txn_last INTEGER NOT NULL,  -- commit marker: the last seq of this record's transaction
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
CREATE TABLE IF NOT EXISTS floor_outbox (
    n       INTEGER PRIMARY KEY AUTOINCREMENT,
    seq     INTEGER NOT NULL,
    kind    TEXT    NOT NULL,
    payload TEXT    NOT NULL
);
"""

#: one schema object: (type, name, table, SQL text) as ``sqlite_master`` lists it
SchemaObject = tuple[str, str, str, str | None]


@functools.cache
def expected_objects() -> frozenset[SchemaObject]:
    """Every schema object :data:`SCHEMA` makes, exactly as SQLite records it."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        return frozenset(_objects(db))
    finally:
        db.close()


def _objects(db: sqlite3.Connection) -> list[SchemaObject]:
    return [(str(t), str(n), str(tb), None if s is None else str(s)) for t, n, tb, s in
            db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")]


def foreign_objects(db: sqlite3.Connection) -> str | None:
    """Why the database's schema is not exactly ours (a planted trigger, a view, an index,
    a changed or missing table), or None."""
    have = set(_objects(db))
    want = expected_objects()
    extra = sorted(have - want, key=lambda o: (o[0], o[1]))
    if extra:
        kind, name, table, _sql = extra[0]
        known = {(t, n) for t, n, _tb, _s in want}
        what = "changed" if (kind, name) in known else "foreign"
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        return (f"the journal's schema holds a {what} {kind} {name!r} on {table!r}{more}: "
                "someone edited the database file (a trigger or a changed table can make "
                "writes vanish)")
    missing = sorted(want - have, key=lambda o: (o[0], o[1]))
    if missing:
        return f"the journal's schema lacks its {missing[0][0]} {missing[0][1]!r}"
    return None


def schema_cookie(db: sqlite3.Connection) -> int:
    """SQLite's schema cookie: it changes whenever any schema object is created, altered
    or dropped, by any connection."""
    return int(db.execute("PRAGMA schema_version").fetchone()[0])


def create_schema(db: sqlite3.Connection, key: bytes | None) -> None:
    """The tables and the journal's facts in ONE transaction: a kill -9 while a journal
    is created leaves a whole journal or an empty file, never half a schema. An existing
    journal's schema is left alone (and checked by :func:`foreign_objects`)."""
    if db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        return
    chain = "sha256" if key is None else "hmac-sha256"
    key_id = "" if key is None else journal_key.key_id(key)
    db.executescript(
        "BEGIN IMMEDIATE;" + SCHEMA
        + f"INSERT OR IGNORE INTO info(key, value) VALUES('schema', '{SCHEMA_VERSION}');"
        f"INSERT OR IGNORE INTO info(key, value) VALUES('chain', '{chain}');"
        f"INSERT OR IGNORE INTO info(key, value) VALUES('key_id', '{key_id}');"
        "COMMIT;")


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in db.execute(f"PRAGMA table_info({table})")}


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
    try:
        version = int(row[0])
    except ValueError:
        raise JournalError(f"{path}: journal schema {row[0]!r}, expected "
                           f"{SCHEMA_VERSION}") from None
    if version in OLD_VERSIONS and "txn_last" in _columns(db, "records"):
        # red team F2: the format is the file's, not the unkeyed row's: a journal with
        # commit markers relabelled "older" is tampered, never moved aside as old
        raise JournalDamaged(f"{path}: the journal says it is of format {version} but its "
                           f"records carry commit markers (format {SCHEMA_VERSION}): its "
                           "info row was edited")
    if version in OLD_VERSIONS:
        raise OldJournalFormat(
            f"{path}: a journal of format {version} from older firmware (without commit "
            f"markers{'' if version == 3 else ' and with an unkeyed chain'}); this "
            f"firmware keeps format {SCHEMA_VERSION}: keep it as evidence elsewhere and "
            "start a new one (etg journal init --reason ... --archive)")
    if version != SCHEMA_VERSION:
        raise JournalError(f"{path}: journal schema {row[0]}, expected {SCHEMA_VERSION}")
