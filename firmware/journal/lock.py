"""One table process per journal: the lock beside the journal file."""

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

    def release(self) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
