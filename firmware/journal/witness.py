"""The floor as a witness off the box: a journal behind the floor, or disagreeing with it,
is refused.

Nothing on the table can tell a journal rolled back to an older copy of itself from the
real one: whoever holds old copies of the journal and its head file holds an authentic,
consistent older state (docs/table.md, "What the journal guarantees"). The floor holds a
copy of what the table reported, on another machine. Its acknowledgement, retained on
``etg/ack/<table id>``, says ``{"n": N, "seq": S, "hash": H}``: the outbox messages it holds
up to ``n``, and the journal sequence number and chain hash of the newest journal record
it holds for the table (``seq``/``hash`` absent when it holds none). At every start, before
the table writes anything, it reads that acknowledgement (with a short deadline: a table
plays without a floor) and refuses its journal when

- the journal ends before record ``S`` (it is behind the floor: restored from an older
  copy, or records removed together with the head file),
- record ``S`` has another hash (the journal was rolled back and then played on, or
  replaced by another), or
- its outbox numbered fewer messages than the ``n`` the floor holds.

A journal begun anew (``etg journal init``) names in its first record what it follows: the
end of the journal it replaced (moved aside) and the floor's acknowledgement at that time;
a witness that names one of those is the legitimate predecessor, not a rollback, and the
new journal's outbox numbering continues after it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware.journal.store import Journal

_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Witness:
    """The floor's acknowledgement for this table."""

    n: int
    seq: int | None = None
    hash: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n}
        if self.seq is not None:
            out.update(seq=self.seq, hash=self.hash)
        return out


@dataclass(frozen=True)
class WitnessRead:
    """What asking the floor gave: its acknowledgement, or why there is none."""

    witness: Witness | None
    why: str = ""  # no witness: "the floor did not answer within 3 s", ...


def _int(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63 else None


def parse_ack(payload: Any) -> Witness | None:
    """The acknowledgement's JSON object, checked strictly (None: not one)."""
    if not isinstance(payload, Mapping):
        return None
    n = _int(payload.get("n"))
    if n is None:
        return None
    seq, digest = payload.get("seq"), payload.get("hash")
    if seq is None and digest is None:
        return Witness(n)
    at = _int(seq)
    if at is None or not isinstance(digest, str) or not _HEX64.fullmatch(digest):
        return None
    return Witness(n, at, digest)


def follows(journal: Journal) -> list[dict[str, Any]]:
    """What the journal's first record says it follows (a journal begun anew)."""
    first = journal.record(1)
    if first is None or first.kind != "meta":
        return []
    found = (first.body.get("journal") or {}).get("follows") or []
    return [f for f in found if isinstance(f, dict)]


def witness_problem(journal: Journal, w: Witness) -> str | None:
    """Why the floor's witness refuses this journal, or None."""
    before = follows(journal)
    if w.seq is not None and any(f.get("seq") == w.seq and f.get("hash") == w.hash
                                 for f in before):
        return None  # the floor's newest record is the predecessor's: a journal begun anew
    prior_n = max((int(f.get("n") or 0) for f in before), default=0)
    if w.seq is not None:
        rec = journal.record(w.seq)
        if rec is None:
            return (f"the floor holds record {w.seq} of this table ({w.hash[:12] if w.hash else ''}"
                    f"...) but this journal ends at record {journal.last_seq}: the journal is "
                    "behind the floor (restored from an older copy, or cut back)")
        if rec.hash != w.hash:
            return (f"the floor holds record {w.seq} of this table with hash "
                    f"{(w.hash or '')[:12]}..., this journal's record {w.seq} is "
                    f"{rec.hash[:12]}...: the journal disagrees with the floor (rolled back "
                    "and played on, or replaced)")
    sent = journal.outbox_last_n()
    if w.n > max(sent, prior_n):
        return (f"the floor holds this table's messages up to {w.n} but this journal's "
                f"outbox numbered only {sent}: the journal is behind the floor")
    return None
