"""Which record is of which kind, as the proof's own walk saw it (issue 42, the last gap).

A start's readings ask for records of some kinds and codes (the 801 cash-outs, the
grants, the floor gate's events, the last stop, the fingerprint, the SAS takes...). Had
SQLite answered those by its ``kind``/``code`` columns, it would have answered through
the ``records_kind`` index, a structure the keyed chain does not cover: one byte of an
index page (in the main file or a write-ahead log frame, at rest or at any instant of a
start) changes ``'event'`` into anything else, the cell sorts elsewhere, and the filtered
read MISSES the record (an applied cash-out read as not applied and paid again). The
index cannot be proven without walking it beside the table, and its agreement with the
table's rows is not what the chain proves.

So nothing here is asked of SQLite but rows by their sequence number (the table's own
b-tree, which the proof walked record by record): the proof's walk of the keyed records
notes each record's kind, code and the first 32 bits of its keyed hash from the HASHED
content (:class:`ProvenIndex`), and a reading picks its sequence numbers from that, then
fetches exactly those rows by number (:func:`firmware.journal.reader.select`). A row the
walk saw and the fetch does not return, or returns with another kind, code or hash, is a
journal changed after its proof: refused. No column or index outside the hash decides
what a reading yields. Writes of the table after the start are added as they commit.

Size: 7 bytes a record (2 million records: 14 MB), the price of never asking the file
which records exist.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware.journal.chain import Record

#: the kinds a journal holds (firmware.journal.store.KINDS), as one byte each; 255: other
KIND_IDS = {"input": 1, "event": 2, "round": 3, "meta": 4}
OTHER_KIND = 255
#: the proof walk's per-record note (kind, code, hash)
AddFn = Callable[[str, "int | None", str], None]
#: a code that does not fit two bytes (or None): its row says it, and the hash proves it
NO_CODE, BIG_CODE = 0, 0xFFFF


def fingerprint(digest: str) -> int:
    """The first 32 bits of a record's keyed hash: a row swapped for another one after
    the proof (even a genuine row of another journal under the same secret) differs."""
    return int(digest[:8], 16)


class ProvenIndex:
    """Record ``seq``'s kind, code and hash fingerprint, for seq 1..:attr:`last`."""

    def __init__(self) -> None:
        self.kinds = bytearray(b"\0")  # [0] unused: index by seq
        self.codes = array("H", [NO_CODE])
        self.prints = array("I", [0])

    @property
    def last(self) -> int:
        return len(self.kinds) - 1

    def add(self, seq: int, kind: str, code: int | None, digest: str) -> None:
        """The next record (seq must be :attr:`last` + 1: a chain without gaps)."""
        if seq != len(self.kinds):
            raise ValueError(f"record {seq} after record {self.last}")
        self.kinds.append(KIND_IDS.get(kind, OTHER_KIND))
        self.codes.append(code_id(code))
        self.prints.append(fingerprint(digest))

    def extend(self, records: Iterable[Record]) -> None:
        """The records a write of the table committed, in order."""
        for r in records:
            self.add(r.seq, r.kind, r.code, r.hash)

    def adder(self) -> AddFn:
        """:meth:`add` without its check, for the proof's walk (which checks the order)."""
        kinds, codes, prints = self.kinds.append, self.codes.append, self.prints.append
        ids, code_of = KIND_IDS.get, code_id

        def add(kind: str, code: int | None, digest: str) -> None:
            kinds(ids(kind, OTHER_KIND))
            codes(code_of(code))
            prints(int(digest[:8], 16))

        return add

    def seqs(self, lo: int, hi: int, kinds: Iterable[str] | None,
             codes: Iterable[int] | None, newest_first: bool) -> Iterator[int]:
        """The sequence numbers in lo..hi of those kinds and codes, in record order (or
        newest first). A code beyond two bytes is offered (its row decides)."""
        hi = min(hi, self.last)
        lo = max(lo, 1)
        if lo > hi:
            return iter(())
        wanted = None if codes is None else {code_id(c) for c in codes} | {BIG_CODE}
        if kinds is None:
            found: Iterator[int] = iter(range(hi, lo - 1, -1) if newest_first
                                        else range(lo, hi + 1))
        else:
            ids = {KIND_IDS.get(k, OTHER_KIND) for k in kinds}
            found = _marked(self.kinds, ids, lo, hi, newest_first)
        if wanted is None:
            return found
        codes_of = self.codes
        return (s for s in found if codes_of[s] in wanted)

    def agrees(self, seq: int, kind: str, code: int | None, digest: str) -> bool:
        """A fetched row is the row the proof saw (by its kind, code and hash)."""
        return (0 < seq <= self.last and self.kinds[seq] == KIND_IDS.get(kind, OTHER_KIND)
                and self.codes[seq] == code_id(code)
                and self.prints[seq] == fingerprint(digest))


def code_id(code: int | None) -> int:
    if code is None:
        return NO_CODE
    return code if 0 < code < BIG_CODE else BIG_CODE


def _marked(kinds: bytearray, ids: set[int], lo: int, hi: int,
            newest_first: bool) -> Iterator[int]:
    """Where ``kinds`` holds one of ``ids`` in lo..hi: a byte mask searched in C."""
    table = bytes(1 if i in ids else 0 for i in range(256))
    mask = kinds.translate(table)
    if newest_first:
        at = mask.rfind(1, lo, hi + 1)
        while at >= 0:
            yield at
            at = mask.rfind(1, lo, at)
    else:
        at = mask.find(1, lo, hi + 1)
        while at >= 0:
            yield at
            at = mask.find(1, at + 1, hi + 1)
