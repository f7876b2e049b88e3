"""How the journal's SQLite file is opened: for the table (writer) and for reading only.

The writer creates the file 0600 before SQLite touches it (SQLite gives the ``-wal`` and
``-shm`` files the database file's mode, so all three are private whatever the umask),
and narrows the mode of existing files that a careless copy widened.

Readers (``etg recall``, ``meters``, ``events``, ``audit verify``) must change nothing —
evidence is read, never touched — and must work on a read-only copy. So:

- the file must exist and be an SQLite database: a mistyped path or an empty file is a
  clear error, never a new journal;
- with a write-ahead log beside it and its shared-memory index (a table running, or one
  that stopped without checkpointing), it is opened ``mode=ro``: that creates nothing;
- without a log (a cleanly stopped table), ``immutable=1``: SQLite creates no ``-wal`` or
  ``-shm`` either (``mode=ro`` alone would);
- where neither works (a log without its index on read-only media), the database and its
  log are copied into a private temporary directory and read there.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import urllib.parse
from pathlib import Path

from firmware.journal.errors import JournalDamaged, JournalFileError

SQLITE_MAGIC = b"SQLite format 3\x00"
PRIVATE = 0o600
SIDE_FILES = ("-wal", "-shm")



def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def make_private(path: Path) -> None:
    """Create ``path`` 0600 if it is missing; narrow it (and its -wal/-shm) to 0600 when
    others, or the group beyond reading, could reach it."""
    for suffix in ("", *SIDE_FILES, ".head"):  # red team F9: never through a link
        side = path.with_name(path.name + suffix)
        if side.is_symlink() or (side.exists() and not side.is_file()):
            raise JournalFileError(f"{side}: a symbolic link or not a regular file beside "
                                   "the journal: refused (nothing is written through it)")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, PRIVATE)
    try:
        if os.fstat(fd).st_mode & 0o137:
            os.fchmod(fd, PRIVATE)
    finally:
        os.close(fd)
    for suffix in SIDE_FILES:
        side = path.with_name(path.name + suffix)
        with contextlib.suppress(FileNotFoundError):
            fd = os.open(side, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                if os.fstat(fd).st_mode & 0o137:
                    os.fchmod(fd, PRIVATE)
            finally:
                os.close(fd)


def ensure_directory(d: Path) -> None:
    """``mkdir -p d``, with a clear reason when a part of it is a file (mkdir says only
    "File exists")."""
    for part in (d, *d.parents):
        if part.exists():
            if not part.is_dir():
                raise NotADirectoryError(20, f"{part} is a file, not a directory", str(d))
            break
    d.mkdir(parents=True, exist_ok=True)


def connect_writer(path: Path, *, private: bool = True) -> sqlite3.Connection:
    """The table's connection: the file private, WAL, ``synchronous=FULL``. ``private``
    False: the caller made it private before any connection of this process opened it
    (:func:`make_writable_private`)."""
    if private:
        make_writable_private(path)
    db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=30)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    return db


def make_writable_private(path: Path) -> None:
    """The journal's directory and its files private (:func:`make_private`).

    WHY before any SQLite connection of this process opens the journal: this opens and
    closes the files with plain descriptors, and closing ANY descriptor of a file drops
    every POSIX lock the process holds on it (SQLite's among them). Without its lock on
    the ``-shm`` index, another process opening the journal believes itself the first,
    truncates the index that the table has mapped, and the table dies of SIGBUS."""
    try:
        ensure_directory(path.parent)
        make_private(path)
    except OSError as exc:
        raise JournalFileError(f"{path}: cannot create the journal: {_why(exc)}") from None


def _uri(path: Path, **params: str) -> str:
    q = urllib.parse.urlencode(params)
    return f"file:{urllib.parse.quote(str(path.resolve()))}?{q}"


def check_is_journal(path: Path) -> None:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise JournalFileError(f"{path}: no journal here") from None
    except OSError as exc:
        raise JournalFileError(f"{path}: cannot read the journal: {_why(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        raise JournalFileError(f"{path}: not a journal (not a regular file)")
    if st.st_size == 0:
        raise JournalFileError(f"{path}: the journal file is empty")
    try:
        with path.open("rb") as fh:
            magic = fh.read(len(SQLITE_MAGIC))
    except OSError as exc:
        raise JournalFileError(f"{path}: cannot read the journal: {_why(exc)}") from None
    if magic != SQLITE_MAGIC:
        raise JournalFileError(f"{path}: not a journal (not an SQLite database)")


class ReadOnlyOpen:
    """A read-only connection to an existing journal and what to clean up after it.

    ``snapshot`` (a reader that proves, then reads: issue 42, finding 2): a journal at
    rest (no write-ahead log) is read from a private copy, never through ``immutable``,
    which takes no lock and would read pages someone wrote after the proof; with a log,
    the reader's held read transaction is its snapshot (:meth:`Journal.hold_snapshot`)."""

    def __init__(self, path: Path, *, snapshot: bool = False, checked: bool = False) -> None:
        if not checked:  # checked: before a connection of ours opened it (make_writable_private)
            check_is_journal(path)
        self.path = path
        self._tmp: str | None = None
        wal = path.with_name(path.name + "-wal")
        shm = path.with_name(path.name + "-shm")
        has_log = wal.exists() and wal.stat().st_size > 0
        try:
            if not has_log and snapshot:
                raise sqlite3.OperationalError("a snapshot of a journal at rest: a copy")
            if not has_log:
                self.db = self._probe(_uri(path, mode="ro", immutable="1"))
            elif shm.exists():
                self.db = self._probe(_uri(path, mode="ro"))
            else:
                raise sqlite3.OperationalError("a write-ahead log without its index")
        except sqlite3.Error:
            self.db = self._private_copy(path, wal if has_log else None)

    @staticmethod
    def _probe(uri: str) -> sqlite3.Connection:
        db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            db.close()
            raise
        return db

    def _private_copy(self, path: Path, wal: Path | None) -> sqlite3.Connection:
        import shutil
        import tempfile

        self._tmp = tempfile.mkdtemp(prefix="etg-journal-")
        copy = Path(self._tmp) / "journal.sqlite"
        try:
            shutil.copyfile(path, copy)
            if wal is not None:
                shutil.copyfile(wal, Path(self._tmp) / "journal.sqlite-wal")
            return self._probe(_uri(copy, mode="ro"))
        except OSError as exc:
            self.close()
            raise JournalFileError(f"{path}: cannot read the journal: {exc}") from None
        except sqlite3.Error as exc:  # our magic, but SQLite cannot read it: broken
            self.close()
            raise JournalDamaged(f"{path}: the journal file is damaged (cut short or "
                                 f"overwritten: {exc})") from None

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.db.close()
        if self._tmp is not None:
            import shutil

            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None


def is_new_journal(path: Path) -> bool:
    """No journal here yet: no file, an empty one, or one whose creation was cut short
    (an SQLite file without any table)."""
    try:
        if path.stat().st_size == 0:
            return True
    except FileNotFoundError:
        return True
    try:
        ro = ReadOnlyOpen(path)
    except JournalFileError:
        return False
    try:
        return not ro.db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.Error:
        return False
    finally:
        ro.close()
