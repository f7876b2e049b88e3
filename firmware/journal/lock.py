"""One table process per journal: the lock beside the journal file."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from firmware.journal.errors import TableRunning
from firmware.journal.files import ensure_directory


class JournalLock:
    """One table process per journal: an exclusive lock beside the file."""

    def __init__(self, journal_path: Path, running: str | None = None) -> None:
        self.path = journal_path.with_name(journal_path.name + ".lock")
        ensure_directory(self.path.parent)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
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
