"""One table process per journal: the lock beside the journal file, and on the file itself."""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from pathlib import Path

from firmware.journal.errors import JournalRefused, TableRunning
from firmware.journal.files import ensure_directory


class JournalLock:
    """One table process per journal: an exclusive lock beside the file.

    The lock file is the table's own, mode 0600: anyone who can open it can also take the
    lock and keep every table off the journal. One found wider (a careless copy, another
    umask) is narrowed; one that cannot be (another owner's) is refused."""

    def __init__(self, journal_path: Path, running: str | None = None) -> None:
        self.path = journal_path.with_name(journal_path.name + ".lock")
        ensure_directory(self.path.parent)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            if stat.S_IMODE(os.fstat(self._fd).st_mode) & 0o077:
                os.fchmod(self._fd, 0o600)
        except OSError as exc:
            os.close(self._fd)
            raise JournalRefused(f"{self.path}: the lock file is open to others (mode "
                            f"{stat.S_IMODE(self.path.stat().st_mode):04o}) and cannot be "
                            f"made private: {exc.strerror}; make it 0600 or remove it") from None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._fd)
            raise TableRunning(
                f"{journal_path}: {running or 'another table process is running on this journal'}"
            ) from None
        self._file: int | None = None
        try:
            self._file = _lock_the_file(journal_path, running)
        except BaseException:
            self.release()
            raise

    def release(self) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
        held, self._file = getattr(self, "_file", None), None
        if held is not None:
            # after the journal is closed (callers release last): closing a descriptor of
            # a file drops every POSIX lock this process holds on it, SQLite's included
            with contextlib.suppress(OSError):
                fcntl.flock(held, fcntl.LOCK_UN)
                os.close(held)


def _lock_the_file(journal_path: Path, running: str | None) -> int | None:
    """The lock on the journal's own inode, and its one name.

    Why: the lock file, the write-ahead log and SQLite's shared memory are all named from
    the path. A second name for the same file (a hard link, or the file renamed under a
    running table) would get a lock, a log and a shared memory of its own, so a second
    writer would prove and pay beside the first (red team r42 F1; deleting the lock file
    did the same, F3). A lock on the inode holds whatever the file is called, and a file
    with more than one name is refused outright. A journal not yet made (a bench table's
    first start) has no inode to lock; production opens only a journal ``etg journal
    init`` made."""
    try:
        fd = os.open(journal_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalRefused(f"{journal_path}: cannot open the journal file to lock it: "
                             f"{exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise JournalRefused(f"{journal_path}: the journal is not a regular file")
        if st.st_nlink != 1:
            raise JournalRefused(
                f"{journal_path}: the journal file has {st.st_nlink} names (hard links): "
                "a second name would run a second writer beside this one; remove the "
                "other names (find <dir> -samefile <journal>) and start again")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise TableRunning(
                f"{journal_path}: "
                f"{running or 'another table process is running on this journal'}"
                " (under another name of the same file)") from None
    except BaseException:
        os.close(fd)  # nothing of SQLite's is open on it yet in this call
        raise
    return fd
