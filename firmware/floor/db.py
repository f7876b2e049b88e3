"""The floor database: an SQLite file by default, PostgreSQL by URL.

The floor's SQL is written once, in the subset both speak (``ON CONFLICT`` upserts,
``?`` placeholders, rewritten to ``%s`` for psycopg); :class:`Database` hides the rest —
how to connect, and the one DDL difference (an auto-numbered key).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from firmware.floor.db_bulk import Bulk, column_types
from firmware.floor.errors import DatabaseAway

#: PostgreSQL's answers that say the server refuses writes, not this data (beyond its
#: OperationalError: connection, resources, disk full, shutdown, deadlock): a read-only
#: transaction — a fail-over onto a standby, ``default_transaction_read_only``
REFUSING_WRITES = frozenset({"25006"})

SCHEMA = """
CREATE TABLE IF NOT EXISTS floor_tables (
    table_id TEXT PRIMARY KEY, status TEXT, online INTEGER NOT NULL DEFAULT 0,
    last_n BIGINT NOT NULL DEFAULT 0, last_seq BIGINT NOT NULL DEFAULT 0, head TEXT,
    meters TEXT, updated DOUBLE PRECISION
);
CREATE TABLE IF NOT EXISTS floor_messages (
    table_id TEXT NOT NULL, n BIGINT NOT NULL, seq BIGINT NOT NULL, kind TEXT NOT NULL,
    hash TEXT NOT NULL, PRIMARY KEY (table_id, n)
);
CREATE TABLE IF NOT EXISTS floor_events (
    table_id TEXT NOT NULL, seq BIGINT NOT NULL, code INTEGER, round_no BIGINT,
    ts_ns BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS floor_rounds (
    table_id TEXT NOT NULL, seq BIGINT NOT NULL, round_no BIGINT, ts_ns BIGINT NOT NULL,
    record TEXT NOT NULL, PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS floor_alarms (
    id AUTOKEY, table_id TEXT NOT NULL, at DOUBLE PRECISION NOT NULL, kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS floor_staff (name TEXT PRIMARY KEY, pwhash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS floor_sessions (
    token TEXT PRIMARY KEY, name TEXT NOT NULL, csrf TEXT NOT NULL,
    expires DOUBLE PRECISION NOT NULL
);
CREATE TABLE IF NOT EXISTS floor_commands (
    id TEXT PRIMARY KEY, table_id TEXT NOT NULL, action TEXT NOT NULL, by_name TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS floor_messages_seq ON floor_messages (table_id, seq);
CREATE TABLE IF NOT EXISTS floor_evidence (
    id AUTOKEY, table_id TEXT NOT NULL, at DOUBLE PRECISION NOT NULL, kind TEXT NOT NULL,
    n BIGINT, seq BIGINT, hash TEXT, detail TEXT NOT NULL, payload TEXT
);
CREATE TABLE IF NOT EXISTS floor_actions (
    id AUTOKEY, table_id TEXT NOT NULL, action TEXT NOT NULL, by_name TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL, detail TEXT
);
CREATE TABLE IF NOT EXISTS floor_software_checks (
    id TEXT PRIMARY KEY, table_id TEXT NOT NULL, by_name TEXT NOT NULL,
    asked DOUBLE PRECISION NOT NULL, seed TEXT NOT NULL, expected TEXT,
    answered DOUBLE PRECISION, answer TEXT, files BIGINT, result TEXT, detail TEXT
);
CREATE TABLE IF NOT EXISTS floor_meter_points (
    table_id TEXT NOT NULL, day TEXT NOT NULL, slot INTEGER NOT NULL,
    win_cents BIGINT NOT NULL, drop_cents BIGINT NOT NULL, PRIMARY KEY (table_id, day, slot)
);
"""

#: columns added since the first floor release: (table, column, type), added when missing
#: (``CREATE TABLE IF NOT EXISTS`` leaves an older database's tables as they were)
ADDED_COLUMNS = (
    ("floor_tables", "last_hash", "TEXT"),
    ("floor_tables", "last_seen", "DOUBLE PRECISION"),
    ("floor_tables", "online_changed", "DOUBLE PRECISION"),
    ("floor_tables", "quarantined", "TEXT"),
    ("floor_tables", "quarantined_at", "DOUBLE PRECISION"),
    ("floor_tables", "day", "TEXT"),
    ("floor_tables", "day_open", "TEXT"),
    ("floor_alarms", "ack_by", "TEXT"),
    ("floor_alarms", "ack_at", "DOUBLE PRECISION"),
    ("floor_commands", "reason", "TEXT"),
    ("floor_software_checks", "claimed", "TEXT"),
    ("floor_staff", "role", "TEXT"),
)


class Database:
    """One connection (the floor service opens one for ingest, one for the web), used
    under a lock; every call is one transaction. A PostgreSQL connection lost to a server
    restart is opened again on the next call; until it can be, calls raise
    :class:`DatabaseAway`, which the ingest tells from a record it cannot store."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = url.startswith(("postgresql://", "postgres://"))
        self._lock = threading.Lock()
        self._bulk = Bulk(column_types(SCHEMA, ADDED_COLUMNS))
        #: False: one statement a row on PostgreSQL too (the yardstick of ``python -m
        #: benchmarks floor-store``)
        self.bulk = True
        try:
            self._conn: Any = self._connect()
        except ImportError:
            raise UserError("a PostgreSQL floor database needs psycopg: "
                            "pip install 'etg-firmware[floor]'") from None
        except Exception as exc:
            raise UserError(f"floor database {self.safe_url}: {exc}") from None
        ddl = SCHEMA.replace(
            "AUTOKEY", "BIGSERIAL PRIMARY KEY" if self.postgres
            else "INTEGER PRIMARY KEY AUTOINCREMENT")
        with self._lock:
            for stmt in filter(str.strip, ddl.split(";")):
                self._conn.execute(stmt)
            self._conn.commit()
            for table, column, kind in ADDED_COLUMNS:
                if column not in self._columns(table):
                    self._conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
            self._conn.commit()

    def _connect(self) -> Any:
        if self.postgres:
            import psycopg

            return psycopg.connect(self.url, connect_timeout=5)
        path = Path(self.url.removeprefix("sqlite:///").removeprefix("sqlite:"))
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    def _away(self, exc: BaseException) -> bool:
        """Whether ``exc`` says the database is unreachable or cannot write, rather than
        that a statement's data was refused."""
        if isinstance(exc, sqlite3.OperationalError):
            return True
        if self.postgres:
            import psycopg

            return isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError) or \
                getattr(exc, "sqlstate", None) in REFUSING_WRITES
        return False

    def _columns(self, table: str) -> set[str]:
        """The columns a table has now (called under the lock)."""
        if self.postgres:
            rows = self._conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = %s",
                (table,)).fetchall()
            return {str(r[0]) for r in rows}
        return {str(r[1]) for r in self._conn.execute(f"PRAGMA table_info({table})")}

    @property
    def safe_url(self) -> str:
        """The URL without a password, for messages."""
        if "@" in self.url and "://" in self.url:
            scheme, rest = self.url.split("://", 1)
            return f"{scheme}://***@{rest.split('@', 1)[1]}"
        return self.url

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.postgres else sql

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        """A cursor inside one transaction, under the lock: committed, or rolled back."""
        with self._lock:
            try:
                if self.postgres and (self._conn.closed or self._conn.broken):
                    self._conn = self._connect()
                yield self._conn.cursor()
                self._conn.commit()
            except BaseException as exc:
                with contextlib.suppress(Exception):
                    self._conn.rollback()
                if self._away(exc):
                    raise DatabaseAway(f"floor database {self.safe_url}: "
                                       f"{str(exc).strip() or type(exc).__name__}") from exc
                raise

    def run_grouped(self, work: Iterable[tuple[str, Sequence[Any]]]) -> None:
        """Execute statements in one transaction, each distinct statement once with all
        its rows, in the order the statements first appear; the rows of one statement
        keep their order. For batches whose statements commute. On PostgreSQL each is one
        statement over arrays (:mod:`firmware.floor.db_bulk`), all of them sent at once;
        elsewhere ``executemany``."""
        groups: dict[str, list[tuple[Any, ...]]] = {}
        for sql, args in work:
            groups.setdefault(sql, []).append(tuple(args))
        with self._transaction() as cur, self._pipeline():
            for sql, rows in groups.items():
                if self.postgres and self.bulk and \
                        (bulk := self._bulk.rewrite(sql, rows)) is not None:
                    cur.execute(bulk[0], bulk[1])
                    continue
                cur.executemany(self._sql(sql), rows)

    def _pipeline(self) -> contextlib.AbstractContextManager[Any]:
        """PostgreSQL: the statements sent without waiting for each one's answer (one
        round trip for the batch, not one a statement; an error still fails it whole)."""
        return self._conn.pipeline() if self.postgres else contextlib.nullcontext()

    def run(self, work: Iterable[tuple[str, Sequence[Any]]]) -> None:
        """Execute statements in one transaction."""
        with self._transaction() as cur:
            for sql, args in work:
                cur.execute(self._sql(sql), tuple(args))

    def all(self, sql: str, args: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._transaction() as cur:
            cur.execute(self._sql(sql), tuple(args))
            return [tuple(r) for r in cur.fetchall()]

    def one(self, sql: str, args: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        rows = self.all(sql, args)
        return rows[0] if rows else None

    def close(self) -> None:
        with self._lock:
            self._conn.close()
