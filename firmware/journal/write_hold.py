"""An offline writer's proof and its reading as one (issue 42, finding 2).

``etg credits add|out`` on a stopped table proves the journal through a read-only
connection, then reads it through its writer (the transfer ids, the replay) and decides
about money. The journal's lock file keeps another ``etg`` out, not a plain SQLite
client: one that commits between the proof and the reading would have the transfer
decided on records nobody proved. So the writer takes SQLite's own write lock BEFORE
the proof and holds it until its own first write: nobody can commit meanwhile (an
editor waits, then fails), and what it reads is what was proven.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from firmware.journal.chain import Entry, Record
from firmware.journal.checkpoint import Checkpointer
from firmware.journal.errors import JournalRefused
from firmware.journal.store import Journal

#: how long the write lock is waited for (a table's commit takes milliseconds)
WAIT_S = 5.0


def take_write_lock(path: Path) -> sqlite3.Connection:
    """SQLite's write lock on ``path`` (a connection holding BEGIN IMMEDIATE, writing
    nothing); JournalRefused if another writer keeps it."""
    uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=rw"
    try:
        db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=WAIT_S)
    except sqlite3.Error as exc:
        raise JournalRefused(f"{path}: cannot open the journal to lock it: {exc}") from None
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        db.close()
        raise JournalRefused(f"{path}: another process writes the journal ({exc}): nothing "
                             "is done") from None
    return db


class HeldUntilWritten(Journal):
    """A writer whose journal nobody may commit to from before its proof until its own
    first write (:func:`take_write_lock`): the lock is let go just before that write,
    or when it closes without one."""

    held_lock: sqlite3.Connection | None = None

    def release_lock(self) -> None:
        if self.held_lock is not None:
            self.held_lock.close()  # rolls back: it wrote nothing
            self.held_lock = None

    def append(self, entries: Iterable[Entry], meters: Mapping[Any, int] | None = None, *,
               checkpoint: Checkpointer | None = None) -> list[Record]:
        self.release_lock()
        return super().append(entries, meters, checkpoint=checkpoint)

    def set_info(self, key: str, value: str) -> None:
        self.release_lock()  # a write too: never one waiting on our own lock
        super().set_info(key, value)

    def close(self) -> None:
        self.release_lock()
        super().close()
