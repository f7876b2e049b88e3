"""The journal's facts outside the chain (``info``) and its floor outbox's numbering:
:class:`~firmware.journal.store.Journal`'s methods that touch neither records nor meters."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from firmware.journal.errors import JournalError


class InfoAndOutbox:
    """Mixed into the journal: its connection, lock and path are the journal's."""

    path: Path
    _db: sqlite3.Connection
    _lock: threading.RLock
    _guard: Any  # a start's baseline (firmware.journal.start_guard.StartGuard) or None

    def _rollback(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("ROLLBACK")

    def continue_outbox_after(self, n: int) -> None:
        """A new journal's floor outbox numbers its messages after ``n`` (its predecessor's
        last, which the floor holds), so the floor takes them as what follows."""
        if n > self.outbox_last_n():
            with self._lock:
                try:
                    self._db.executescript(  # one transaction
                        "BEGIN IMMEDIATE; DELETE FROM sqlite_sequence WHERE name='floor_outbox';"
                        f"INSERT INTO sqlite_sequence(name, seq) VALUES('floor_outbox', {int(n)});"
                        "COMMIT;")
                except sqlite3.Error as exc:
                    self._rollback()
                    raise JournalError(f"{self.path}: journal write failed: {exc}") from exc

    def outbox_last_n(self) -> int:
        """The last number the floor outbox gave a message (0: none yet)."""
        row = self._db.execute(
            "SELECT seq FROM sqlite_sequence WHERE name = 'floor_outbox'").fetchone()
        return int(row[0]) if row else 0

    def info(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM info WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_info(self, key: str, value: str) -> None:
        """A fact about the running table outside the chain (e.g. the last start time)."""
        with self._lock:
            self._db.execute(
                "INSERT INTO info(key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    @contextlib.contextmanager
    def beside(self) -> Iterator[sqlite3.Connection]:
        """One transaction of another writer of this journal's schema (the floor
        outbox's catch-up and acknowledgements) on the table's own connection: a start's
        baseline counts only foreign commits (:mod:`firmware.journal.start_guard`)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                if self._guard is not None:
                    self._guard.check(self._db)
                yield self._db
            except BaseException:
                self._rollback()
                raise
            self._db.execute("COMMIT")

    def write_beside(self, sql: str, args: tuple[Any, ...] = ()) -> None:
        """One statement of another writer of this journal's schema, in its own
        transaction on the table's connection (:meth:`beside`)."""
        try:
            with self.beside() as db:
                db.execute(sql, args)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: journal write failed: {exc}") from exc
