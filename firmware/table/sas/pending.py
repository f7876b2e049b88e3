"""The commits a SAS link is told of before they are visible (issue 46 point 3).

A transaction that changes what a host reads (a meter, a round's result, a transfer) is
numbered and told *before* its COMMIT (the journal's stager, under its lock, so in commit
order); each snapshot is tagged with the newest told number it reflects. The link
answers a meter, credit or transfer-status poll only from a snapshot whose tag reaches
the number told when the poll came, so it never answers from before a commit that
``etg meters`` already shows (docs/sas.md states the argument).

Process layout: the number lives in a shared page (``page``, a memfd the link's process
maps read-only): a store, the controller never waits on the process. Thread layout: the
link thread reads :attr:`CommitTells.told` and waits on :meth:`settled`.
"""

from __future__ import annotations

import mmap
import struct
import threading


class CommitTells:
    """The told and the resolved commits of one line (``page``: the process's page)."""

    def __init__(self, page: mmap.mmap | None = None) -> None:
        self.page = page
        self.told = 0  #: the newest commit told pending
        self.shown = 0  #: thread layout: the newest told commit the machines show
        self._resolved = 0  # the newest told commit known committed (any thread's)
        self._mine = threading.local()  # the newest commit this thread told
        self._cv = threading.Condition()

    def pending(self) -> None:
        """A host-readable commit is about to COMMIT: numbered, told."""
        with self._cv:
            self.told += 1
            n = self.told
            if self.page is not None:
                struct.pack_into("<Q", self.page, 0, n)
        self._mine.n = n

    def committed(self) -> None:
        """The journal's committed hook: this thread's told commit is visible now."""
        n = getattr(self._mine, "n", 0)
        with self._cv:
            self._resolved = max(self._resolved, n)

    def resolved(self) -> int:
        """The tag of a snapshot built now on this thread (read before it is built):
        every commit this thread told has ended (committed, or rolled back: nothing of it
        visible), another thread's once its committed hook ran (commits are serialized
        by the journal's lock, so the number is a prefix)."""
        with self._cv:
            return max(self._resolved, getattr(self._mine, "n", 0))

    def show(self, tag: int) -> None:
        """Thread layout: the machines hold the snapshots tagged ``tag`` now."""
        with self._cv:
            self.shown = max(self.shown, tag)
            self._cv.notify_all()

    def settled(self, bound: float) -> bool:
        """Thread layout, on the link's thread: the machines' snapshots reflect every
        commit told before now (waiting at most ``bound`` seconds for them)."""
        with self._cv:
            told = self.told
            return self._cv.wait_for(lambda: self.shown >= told, bound)
