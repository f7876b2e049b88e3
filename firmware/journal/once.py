"""Money moves once: the rules the proof holds every credit transfer of the chain to.

The table applies a transfer id at most once (firmware.table.requests.transfers: a second
request with the same id is answered from the first) and grants the auto-play credits to
a seat only while the journal holds no credit transfer into that seat
(firmware.table.service.run). Those rules decide on what a start READS; if a reading were
ever fooled (a record hidden from it: red team s42 F1, F7), the money would move twice
and every record of it would still verify, since each was keyed by the table itself.
Then a plain ``REINDEX`` removes the fooling, and nothing named the double payment (F8).

So the proof's walk (firmware.journal.verify, every start, ``etg audit verify``, the
offline readers) holds the chain itself to those rules, on the keyed content of every
800/801 event from record 1:

- **one transfer id, one application**: a second 800/801 with an id already applied is a
  BROKEN journal naming both records ("transfer T-1 applied twice: records 891 and 893");
- **one auto-play grant per seat**: a grant (id ``auto-play:<seat>``) into a seat that
  some earlier transfer already credited, or whose id names another seat, is BROKEN.

The cost is one dictionary entry per transfer id (the table's live ledger already keeps
one, larger, per id) and one JSON parse per transfer record: the start walks the whole
chain from record 1 anyway (the keyed hashes), so nothing needs carrying in a checkpoint.
"""

from __future__ import annotations

from typing import Any

#: event codes of attendant transfers (firmware.journal.codes.EventCode)
CREDITS_IN, CREDITS_OUT = 800, 801
TRANSFER_CODES = (CREDITS_IN, CREDITS_OUT)
#: the id of the auto-play credits granted to seat N: ``auto-play:N`` (the table's own:
#: a client's transfer may not take it, firmware.table.requests.transfers)
GRANT_PREFIX = "auto-play:"


def grant_id(seat: int) -> str:
    return f"{GRANT_PREFIX}{seat}"


class OnceRules:
    """The walk's memory of the transfers met so far (see the module docstring)."""

    __slots__ = ("applied", "credited")

    def __init__(self) -> None:
        self.applied: dict[str, int] = {}  # transfer id -> the record that applied it
        self.credited: dict[int, int] = {}  # seat -> its first credits-in record

    def take(self, seq: int, code: int, body: dict[str, Any]) -> str | None:
        """Record ``seq``, an 800/801 event with ``body``: the rule it breaks, or None."""
        if not isinstance(body, dict):
            return f"record {seq} is a credit transfer whose body is not an object"
        tid = body.get("transfer")
        seat = body.get("seat")
        if isinstance(tid, str):
            first = self.applied.get(tid)
            if first is not None:
                return f"transfer {tid} applied twice: records {first} and {seq}"
            self.applied[tid] = seq
            if tid.startswith(GRANT_PREFIX):
                why = self._grant(seq, code, tid, seat)
                if why:
                    return why
        if code == CREDITS_IN and isinstance(seat, int):
            self.credited.setdefault(seat, seq)
        return None

    def _grant(self, seq: int, code: int, tid: str, seat: object) -> str | None:
        if code != CREDITS_IN or tid != grant_id(seat if isinstance(seat, int) else -1):
            return (f"record {seq} is an auto-play grant ({tid}) that is not a credit into "
                    f"the seat it names (seat {seat})")
        before = self.credited.get(seat)  # type: ignore[call-overload]
        if before is not None:
            return (f"seat {seat} granted its auto-play credits at record {seq}, but record "
                    f"{before} had already credited it: a grant is made only into a seat "
                    "the journal never credited (granted twice)")
        return None
