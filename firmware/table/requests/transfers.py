"""Credit transfers: parsed strictly, bounded, and applied at most once per client id.

Every entry point — the attendant socket, the bench control channel, ``etg credits`` with
or without a running table — ends in the controller's one transfer path, which takes its
arguments through :func:`parse_transfer`: integers only (a JSON float such as ``1e19``, a
string, a boolean are refused, never coerced), the amount within the configured maximum
per transfer and the seat's credits within the maximum per seat. Both maxima are far
inside SQLite's 64-bit integers, so the meters stay integers for the life of a table.

A transfer carries an id chosen by the client. The id is journaled in the same
transaction as the transfer, so across any crash or retry the table knows whether it
applied it: a second request with the same id is answered with the first one's result
and changes nothing, and a client that gave up waiting asks :meth:`TransferLedger.status`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from firmware.journal.once import GRANT_PREFIX
from firmware.table.errors import TableError

if TYPE_CHECKING:
    from firmware.journal import Journal

KINDS = ("credits-in", "credits-out")
#: what an id looks like: short, printable, no spaces (a uuid4 hex fits)
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
#: far below 2**63: the meters add transfers for the life of the table
HARD_MAX_CENTS = 10**12


@dataclass(frozen=True)
class CreditLimits:
    """The configured maxima (``table.max_transfer_cents``, ``table.max_seat_credits``)."""

    per_transfer: int = 10_000_000
    per_seat: int = 100_000_000


class TransferRefused(TableError):
    """A transfer request that is not applied; the message says why."""


@dataclass(frozen=True)
class Transfer:
    kind: str
    seat: int
    cents: int
    transfer_id: str | None

    @property
    def signed(self) -> int:
        return self.cents if self.kind == "credits-in" else -self.cents

    def same_as(self, applied: Mapping[str, Any]) -> bool:
        return (applied.get("kind"), applied.get("seat"), applied.get("cents")) == (
            self.kind, self.seat, self.cents)


def strict_int(value: Any, name: str, lo: int, hi: int) -> int:
    """``value`` if it is an integer (not a bool, float or string) within [lo, hi]."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TransferRefused(f"{name} must be an integer, not {type(value).__name__} "
                              f"{str(value)[:32]!r}")
    if not lo <= value <= hi:
        raise TransferRefused(f"{name} {value} is outside {lo}..{hi}")
    return value


def transfer_id(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not ID_RE.fullmatch(value):
        raise TransferRefused("id must be 1-64 letters, digits or . _ : - (e.g. a uuid)")
    return value


def parse_transfer(kind: str, args: Mapping[str, Any], seats: int,
                   limits: CreditLimits) -> Transfer:
    if kind not in KINDS:
        raise TransferRefused(f"unknown transfer {kind!r}")
    unknown = set(args) - {"seat", "cents", "id"}
    if unknown:
        raise TransferRefused(f"unknown field(s): {', '.join(sorted(map(str, unknown)))}")
    tid = transfer_id(args.get("id"))
    # reserved prefixes in any case: an attendant's 'SAS:46003:5959' beside the host's
    # 'sas:46003:5959' misled an audit that matches ids without case (red team r46 F3)
    if tid is not None and tid.casefold().startswith("sas:"):
        raise TransferRefused("ids beginning 'sas:' are the slot system's (AFT)")
    if tid is not None and tid.casefold().startswith(GRANT_PREFIX.casefold()):
        raise TransferRefused(f"ids beginning {GRANT_PREFIX!r} are the table's own (the "
                              "auto-play grant of a seat)")
    seat = strict_int(args.get("seat"), "seat", 1, seats)
    cents = strict_int(args.get("cents"), "cents", 1, min(limits.per_transfer, HARD_MAX_CENTS))
    return Transfer(kind, seat, cents, tid)


class TransferLedger:
    """The ids of the transfers this journal applied: read back at start, kept live.

    Written by the controller's thread, read by the attendant server's threads (a status
    question must be answered even while the controller is busy): a lock keeps it whole.
    """

    def __init__(self) -> None:
        self._applied: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_journal(cls, journal: Journal) -> TransferLedger:
        from firmware.journal import EventCode

        ledger = cls()
        codes = {int(EventCode.CREDITS_IN): "credits-in", int(EventCode.CREDITS_OUT):
                 "credits-out"}
        for r in journal.records(kinds=["event"]):
            tid = r.body.get("transfer")
            if r.code in codes and isinstance(tid, str):
                ledger.record(tid, codes[int(r.code or 0)], int(r.body["seat"]),
                              int(r.body["cents"]), r.seq)
        return ledger

    def record(self, tid: str, kind: str, seat: int, cents: int, seq: int) -> None:
        with self._lock:
            self._applied[tid] = {"kind": kind, "seat": seat, "cents": cents, "seq": seq}

    def lookup(self, tid: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._applied.get(tid)
            return None if found is None else dict(found)

    def status(self, tid: str, in_flight: bool = False) -> dict[str, Any]:
        """``applied`` (with what and the journal record), ``pending`` (received, not yet
        handled) or ``not-applied`` (never received, or refused: safe to send again)."""
        found = self.lookup(tid)
        if found is not None:
            return {"id": tid, "state": "applied", **found}
        return {"id": tid, "state": "pending" if in_flight else "not-applied"}
