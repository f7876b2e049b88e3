"""The journal's head, kept outside the database: ``<journal>.head``.

Why outside: a head stored in the journal's own tables is deleted together with the
trailing records by the same SQL edit, and a lost write-ahead log rolls both back at
once. A second file, written and ``fdatasync``'d after every commit, still names the last
record when the database no longer holds it: the next start and ``etg audit verify``
report the missing records instead of re-heading the shortened chain.

Format: two fixed slots of :data:`SLOT` bytes, written alternately in place (no rename,
one sync per commit); each slot reads ``etgh1 SEQ HASH MAC`` where MAC is the journal's
keyed hash over ``SEQ`` and ``HASH``, so the head cannot be edited to match a shortened
chain either. A write torn by a power cut damages at most one slot; the reader takes the
valid slot with the highest sequence number.

The database may be *ahead* of the head by the records of one transaction (a power cut
between the commit and the head write): those records are authentic (their keyed chain
proves it) and the head is rewritten at the next commit.

**Deferred head (the table).** The table shows a card once its record is committed (the
write-ahead log synced), and writes the head after publishing the new view
(:meth:`HeadWriter.sync`), so the screen waits for one sync, not two. The head write is
never later than the start of the next commit (:meth:`HeadWriter.synced`), so the database
is still ahead of the head by one transaction at most: exactly the state a power cut
between the commit and the head write leaves anyway. docs/table.md argues it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
from dataclasses import dataclass, field
from pathlib import Path

from firmware.journal.errors import HeadFileError

SLOT = 256
MAGIC = "etgh1"


@dataclass(frozen=True)
class Head:
    seq: int
    hash: str
    #: what the file's other slot held when this head was read (issue 42, red team F4):
    #: "previous" (an older head: the normal state), "blank" (never written), "damaged"
    #: (torn, cut or edited) or "same" (a copy of this one). Only "previous" lets the
    #: journal end exactly at this head: a torn write only ever follows a commit that is
    #: in the journal, so with a blank or damaged other slot the journal must be AHEAD of
    #: this head (firmware.journal.verify) — else its newest head was removed.
    other: str = field(default="previous", compare=False)


def head_path(journal_path: str | Path) -> Path:
    p = Path(journal_path)
    return p.with_name(p.name + ".head")


def _mac(key: bytes | None, seq: int, digest: str) -> str:
    msg = f"etg-journal-head|{seq}|{digest}".encode("ascii")
    if key is None:
        return hashlib.sha256(msg).hexdigest()
    return hmac.new(key, msg, hashlib.sha256).hexdigest()


def _slot_text(key: bytes | None, head: Head) -> bytes:
    line = f"{MAGIC} {head.seq} {head.hash} {_mac(key, head.seq, head.hash)}\n"
    data = line.encode("ascii")
    assert len(data) <= SLOT
    return data.ljust(SLOT, b" ")


def _parse(key: bytes | None, raw: bytes) -> Head | None:
    try:
        magic, seq, digest, mac = raw.decode("ascii").split()
        head = Head(int(seq), digest)
    except (UnicodeDecodeError, ValueError):
        return None
    if magic != MAGIC or not hmac.compare_digest(mac, _mac(key, head.seq, head.hash)):
        return None
    return head



def read_head(path: Path, key: bytes | None) -> Head | None:
    """The newest valid head in ``path``; None if there is no head file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    if not data.strip(b"\0 "):
        return None  # created, never written: a power cut while the journal was created
    slots = [data[i:i + SLOT] for i in (0, SLOT)]
    parsed = [_parse(key, s) for s in slots]
    heads = [h for h in parsed if h is not None]
    if not heads:
        raise HeadFileError(f"{path}: no valid head record (edited, or made with another secret)")
    newest = max(heads, key=lambda h: h.seq)
    if len(heads) == 2:
        other = "same" if heads[0].seq == heads[1].seq else "previous"
    else:
        bad = slots[parsed.index(None)]
        other = "blank" if len(bad) == SLOT and not bad.strip(b"\0 ") else "damaged"
    return Head(newest.seq, newest.hash, other)


def newest_slot(path: Path, key: bytes | None) -> int | None:
    """The slot (0 or 1) holding the file's newest valid head, or None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    heads = [(h.seq, i) for i in (0, 1) if (h := _parse(key, data[i * SLOT:(i + 1) * SLOT]))]
    return max(heads)[1] if heads else None


class HeadWriter:
    """Keeps the head file open and writes one slot per commit, then syncs it; with
    ``later`` the write waits for :meth:`sync` or the next commit, whichever is first."""

    def __init__(self, path: Path, key: bytes | None) -> None:
        self.path = path
        self._key = key
        newest = newest_slot(path, key)
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        os.fchmod(self._fd, 0o600)
        # the first write goes to the slot NOT holding the newest head: the other slot
        # always holds the head just before (red team F4: a new process overwrote the
        # newest, leaving a head two writes old to fall back to)
        self._next = 0 if newest is None else newest ^ 1
        self._due: Head | None = None

    def write(self, head: Head, *, later: bool = False) -> None:
        """Name ``head``, the record just committed: now, or ``later``."""
        self._due = head
        if not later:
            self.sync()

    def sync(self) -> None:
        """Write and sync the head not yet written, if any (an OSError leaves it due)."""
        if self._due is not None:
            os.pwrite(self._fd, _slot_text(self._key, self._due), self._next * SLOT)
            os.fdatasync(self._fd)
            self._next ^= 1
            self._due = None

    def synced(self) -> HeadWriter:
        """Before the next commit: the previous commit's head is on the disk first."""
        self.sync()
        return self

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sync()
        with contextlib.suppress(OSError):
            os.close(self._fd)
