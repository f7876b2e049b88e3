"""A start reads what its proof proved, whatever is committed beside it (issue 42, finding 2).

``etg run`` proves the journal through a read-only connection and then recovers the
table from it: the transfer ledger, the auto-play grants, the floor gate, the last stop,
the fingerprint, the state to replay. Those reads come AFTER the start's first write (the
power-up record), and SQLite's write lock, held from before the proof
(:mod:`firmware.journal.write_hold`), is let go at that write: a plain SQLite client
could commit between the proof and the reading (the 801 of a cash-out rewritten, the
ledger no longer knows it, and it is paid again). Holding the write lock longer cannot
help, since the table's own writes need it; committing the whole start as one
transaction would put the head file ahead of what is on the card.

So a start reads through :class:`ProvenStart`, never through the file as it is now:

- every record the proof covered comes from ONE read transaction (:class:`ProvenSnapshot`)
  begun while the write lock was still held, so nobody can have committed since the
  proof: it is the proven journal (checked, too, to end at the record and hash the proof
  ended at). SQLite's write-ahead log keeps that snapshot whatever is committed later,
  so the write lock is let go as soon as it is taken (the floor outbox's own connection
  writes before the power-up record: it would wait on it);
- every record after it is one the start wrote itself, served from what its own appends
  returned.

Nothing on the file that was neither proven nor written by this process reaches the
recovery. When the start is done (:func:`start_done`, before the table takes its first
input; or when the journal closes) the snapshot is let go: a held read transaction keeps
SQLite from checkpointing its log, and from then on the table works from the state it
recovered; an edit made meanwhile is found by the next proof (a start, ``etg audit
verify``).
"""

from __future__ import annotations

import contextlib
import itertools
import sqlite3
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from firmware.journal.chain import GENESIS, Entry, Record
from firmware.journal.checkpoint import Checkpointer
from firmware.journal.errors import JournalRefused
from firmware.journal.reader import select
from firmware.journal.store import Journal
from firmware.journal.write_hold import WAIT_S, HeldUntilWritten


class ProvenSnapshot:
    """One read transaction on the journal the proof proved (up to ``upto``, whose hash
    is ``last_hash``), begun while nobody can commit, and the records written since by
    the start itself."""

    def __init__(self, path: Path, upto: int, last_hash: str) -> None:
        self.path, self.upto = path, upto
        self.written: list[Record] = []
        uri = f"file:{urllib.parse.quote(str(path.resolve()))}?mode=ro"
        try:
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None,
                                      check_same_thread=False, timeout=WAIT_S)
        except sqlite3.Error as exc:
            raise JournalRefused(f"{path}: cannot read the proven journal: {exc}") from None
        try:
            self.db.execute("BEGIN")
            end = self.db.execute(  # the snapshot begins
                "SELECT seq, hash FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        except sqlite3.Error as exc:
            self.close()
            raise JournalRefused(f"{path}: cannot read the proven journal: {exc}") from None
        if tuple(end or (0, GENESIS)) != (upto, last_hash):
            self.close()
            raise JournalRefused(f"{path}: the journal changed between its proof (record "
                                 f"{upto}) and its reading")

    def records(self, *, since_seq: int, kinds: Iterable[str] | None,
                since_ns: int | None, round_no: int | None, upto_seq: int | None,
                newest_first: bool) -> Iterator[Record]:
        """The proven records from the snapshot, then the start's own."""
        ks = None if kinds is None else list(kinds)
        cut = self.upto if upto_seq is None else min(upto_seq, self.upto)
        old = select(self.db, self.path, since_seq=since_seq, kinds=ks, since_ns=since_ns,
                     round_no=round_no, upto_seq=cut, newest_first=newest_first)
        new = [r for r in self.written
               if r.seq > since_seq and (upto_seq is None or r.seq <= upto_seq)
               and (ks is None or r.kind in ks)
               and (since_ns is None or r.ts_ns >= since_ns)
               and (round_no is None or r.round_no == round_no)]
        return itertools.chain(reversed(new), old) if newest_first else itertools.chain(
            old, new)

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()  # the read transaction ends with it


class ProvenStart(HeldUntilWritten):
    """The writer of a start (and of an offline transfer): SQLite's write lock held from
    before the proof until its first write, and every read until :meth:`start_done` from
    the proof's snapshot and its own writes (see the module docstring)."""

    snapshot: ProvenSnapshot | None = None

    def read_proven(self, upto: int, last_hash: str) -> None:
        """From now until :meth:`start_done`, read the journal as proven. Called while
        the write lock is still held (right after :meth:`mark_proven`); once the
        snapshot is taken the lock is let go: a commit beside can no longer reach what
        is read, and the table's floor outbox (its own connection) may write."""
        self.snapshot = ProvenSnapshot(self.path, upto, last_hash)
        self.release_lock()

    def records(self, *, since_seq: int = 0, kinds: Iterable[str] | None = None,
                since_ns: int | None = None, round_no: int | None = None,
                upto_seq: int | None = None, newest_first: bool = False) -> Iterator[Record]:
        snap = self.snapshot
        if snap is None:
            return super().records(since_seq=since_seq, kinds=kinds, since_ns=since_ns,
                                   round_no=round_no, upto_seq=upto_seq,
                                   newest_first=newest_first)
        return snap.records(since_seq=since_seq, kinds=kinds, since_ns=since_ns,
                            round_no=round_no, upto_seq=self._gate.limit(upto_seq),
                            newest_first=newest_first)

    def append(self, entries: Iterable[Entry], meters: Mapping[Any, int] | None = None, *,
               checkpoint: Checkpointer | None = None) -> list[Record]:
        written = super().append(entries, meters, checkpoint=checkpoint)
        if self.snapshot is not None:
            self.snapshot.written.extend(written)
        return written

    def start_done(self) -> None:
        if self.snapshot is not None:
            self.snapshot.close()
            self.snapshot = None

    def close(self) -> None:
        self.start_done()
        super().close()


def start_done(journal: Journal) -> None:
    """The start has read what it recovers: let the proof's snapshot go."""
    if isinstance(journal, ProvenStart):
        journal.start_done()
