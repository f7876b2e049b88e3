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
per machine is offered again. What the path holds must be the table's own file (regular,
one link, the table's user's, mode 0600: :func:`open_own_file`); anything else (a link, a
FIFO, a directory, a device, another user's or a wider mode) refuses the link's start,
journaled (``SAS_MARKS_REFUSED``) and one line on the command line: never a run that
quietly keeps no marks.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import hmac
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path

from drivers.sas.process import MARK_SLOT
from etgcore.errors import UserError
from firmware.table.errors import TableError

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
        self._fd = open_own_file(path)

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


class MarksRefused(TableError, UserError):
    """The marks file's path holds something the table will not write its takes into;
    the message names the path, what is there and the technician's remedy."""


#: What every open of the marks file adds: never through a link, never blocking on a
#: FIFO or a device, never a controlling terminal, not into the link process's exec.
_FLAGS = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY


def open_own_file(path: Path) -> int:
    """``path`` opened for reading and writing, or made anew (mode 0600): a regular file
    with one link, this process's user's, mode exactly 0600. Every check is on the opened
    descriptor (fstat), never on the name, so nothing can be swapped in between the
    check and the use. Anything else raises :class:`MarksRefused` (fail closed: a table
    without its marks could offer a taken exception again after a kill -9)."""
    for _attempt in range(3):
        try:  # a fresh file: ours by construction (O_EXCL never follows a link)
            fd = os.open(path, _FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        except OSError as exc:
            raise _refused(path, exc.strerror or str(exc)) from None
        else:
            os.fchmod(fd, 0o600)  # the umask may have taken bits we need
            return _checked(path, fd)
        try:  # something is there: opened without following it, checked as opened
            fd = os.open(path, _FLAGS)
        except FileNotFoundError:
            continue  # removed between the two opens: make it anew
        except OSError as exc:
            raise _refused(path, _what_is_there(path, exc)) from None
        return _checked(path, fd)
    raise _refused(path, "it appears and disappears (something else is changing it)")


def _checked(path: Path, fd: int) -> int:
    st = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(st.st_mode):
        problem = f"it is {_kind(st.st_mode)}, not a regular file"
    elif st.st_nlink != 1:
        problem = f"it has {st.st_nlink} hard links (the marks' file has one)"
    elif st.st_uid != os.geteuid():
        problem = f"it belongs to uid {st.st_uid}, not to the table's user (uid {os.geteuid()})"
    elif stat.S_IMODE(st.st_mode) != 0o600:
        problem = f"its mode is {stat.S_IMODE(st.st_mode):04o}, not 0600"
    if problem is not None:
        os.close(fd)
        raise _refused(path, problem)
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)  # a regular file: blocking writes from here on
    fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_NONBLOCK)
    return fd


def _what_is_there(path: Path, exc: OSError) -> str:
    """Why the open failed, in a technician's words (an lstat only to describe it:
    the decision was the open's)."""
    try:
        kind = _kind(os.lstat(path).st_mode)
    except OSError:
        kind = None
    if exc.errno == errno.ELOOP or kind == "a symbolic link":
        return "it is a symbolic link, not a regular file"
    if kind is not None and kind != "a regular file":
        return f"it is {kind}, not a regular file"
    return f"it cannot be opened ({exc.strerror or exc})"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISREG, "a regular file")):
        if test(mode):
            return name
    return "not a file"


def _refused(path: Path, problem: str) -> MarksRefused:
    return MarksRefused(
        f"SAS: the take marks {path}: {problem}; the link will not start without them "
        f"(a kill -9 could offer a taken exception again). Remove it (rm -r {path}) and "
        "start again: a fresh one is made (docs/sas.md, Exceptions)")


def open_marks(journal_path: Path | None, key: bytes | None,
               journal_id: str | None) -> TakeMarks | None:
    """The marks beside a journal file; None without a file, a key or a first record
    (an in-memory journal: nothing survives a kill -9 to mark against). A path holding
    anything but the table's own marks file raises :class:`MarksRefused`."""
    if (journal_path is None or key is None or not journal_id
            or str(journal_path) == ":memory:"):
        return None
    return TakeMarks(marks_path(journal_path), key, journal_id.encode())


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
