"""The host's acknowledgements of exceptions, marked by the link the moment it reads one.

A machine's exception queue is the journal: an exception is offered until a
``SAS_EXCEPTION_TAKEN`` event says its host took it. That event reaches the journal
through the controller's inbox, a few milliseconds (more under load) after the host's
acknowledging poll; a kill -9 in between would offer the exception once more after the
restart, and the host, which already has it, would count it twice. So the link marks
each take here first, on its own thread, before it answers the acknowledging poll: one
``pwrite`` of a fixed slot per address (the taken record's number and a keyed MAC over
it), which a kill -9 cannot undo (the page cache survives the process; a power cut may
lose the last mark, and then the exception is offered again, the safe direction: never
lost). At the next start :func:`recover` applies a mark the journal does not have yet
and journals it.

A mark is believed only when its MAC is the journal's key's (the same secret that keys
the journal: whoever can forge it can forge the journal) over this journal's identity
(its first record's hash: a journal begun anew at the same path does not inherit the
old one's marks) and its record is one of the machine's untaken exceptions.
A missing, short, torn or forged file is ignored: nothing is lost, at most one exception
per machine is offered again.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import logging
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path

from drivers.sas.process import MARK_SLOT

log = logging.getLogger("etg.sas")

SLOT = MARK_SLOT  # 8 bytes of record number, 32 of MAC
ADDRESSES = 128
_DOMAIN = b"etg sas exception taken v1\0"


def marks_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.name + ".sas-taken")


def _mac(key: bytes, journal_id: bytes, address: int, seq: int) -> bytes:
    return hmac.new(key, _DOMAIN + journal_id + bytes((address,)) + seq.to_bytes(8, "little"),
                    hashlib.sha256).digest()


class TakeMarks:
    """The marks file of one journal (``key``: the journal's secret; ``journal_id``:
    its first record's hash, so that marks of another journal at the same path, one
    archived and begun anew with the same key, never count for this one)."""

    def __init__(self, path: Path, key: bytes, journal_id: bytes) -> None:
        self.path = path
        self._key = key
        self._id = journal_id
        # never through a link, never into anything but a regular file of its own
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        st = os.fstat(self._fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            os.close(self._fd)
            raise OSError(errno.EPERM, "not a regular file of its own")
        if st.st_mode & 0o077:
            os.fchmod(self._fd, 0o600)

    def slot(self, address: int, seq: int) -> bytes:
        """What :meth:`mark` writes for ``seq`` (the link process is given it in the
        snapshot and writes it itself: it never holds the key)."""
        return seq.to_bytes(8, "little") + _mac(self._key, self._id, address, seq)

    def fileno(self) -> int:
        return self._fd

    def mark(self, address: int, seq: int) -> None:
        """One write, before the link answers the poll that acknowledged ``seq``."""
        if 0 < address < ADDRESSES and seq > 0:
            os.pwrite(self._fd, self.slot(address, seq), address * SLOT)

    def read(self) -> dict[int, int]:
        """address -> the newest record its host took, for the slots whose MAC holds."""
        raw = os.pread(self._fd, SLOT * ADDRESSES, 0)
        out = {}
        for a in range(1, ADDRESSES):
            slot = raw[a * SLOT:(a + 1) * SLOT]
            if len(slot) < SLOT:
                break
            seq = int.from_bytes(slot[:8], "little")
            if seq and hmac.compare_digest(slot[8:], _mac(self._key, self._id, a, seq)):
                out[a] = seq
        return out

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


def open_marks(journal_path: Path | None, key: bytes | None,
               journal_id: str | None) -> TakeMarks | None:
    """The marks beside a journal file; None without a file, a key or a first record
    (then only the journal's takes count: an exception may be offered once more after a
    kill -9)."""
    if (journal_path is None or key is None or not journal_id
            or str(journal_path) == ":memory:"):
        return None
    try:
        return TakeMarks(marks_path(journal_path), key, journal_id.encode())
    except OSError as exc:
        log.warning("SAS: cannot open the marks of taken exceptions %s (%s): a kill -9 "
                    "may offer an exception once more", marks_path(journal_path),
                    exc.strerror or exc)
        return None


def recover(marks: TakeMarks, untaken: Mapping[int, set[int]],
            take: Callable[[int, int], None]) -> int:
    """At start: each believed mark naming one of its machine's untaken exceptions
    (``untaken``: address -> their record numbers) is given to ``take(address, seq)``,
    which applies and journals it. Returns how many."""
    n = 0
    for a, seq in sorted(marks.read().items()):
        if seq in untaken.get(a, ()):
            take(a, seq)
            n += 1
    return n
