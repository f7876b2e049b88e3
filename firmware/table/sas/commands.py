"""The SAS requests as the controller carries them out (from its inbox, on its thread).

- ``taken``: the host took a machine's exceptions up to a journal record (journaled, so
  after a restart they are not offered again);
- ``disable`` / ``enable``: the floor's own path (firmware.table.floor_gate), with the
  SAS host as the source; a seat's machine closes that seat, the table's the table;
- ``transfer``: an AFT transfer through the attendant's transfer path (one journal
  transaction with the ledger id, the host's transaction id, the seat's asset number and
  the host's receipt data), refused when the seat is disabled; a refusal is journaled;
- ``host``: the host lost or back (journaled; ``sas.disable_on_host_loss`` closes the
  seats until it is back);
- ``link``: a line's link process ended and was started again (journaled).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from firmware.journal import EventCode
from firmware.table.requests.transfers import Transfer, TransferRefused, strict_int, transfer_id

if TYPE_CHECKING:
    from firmware.journal import Journal
    from firmware.table.ports import RequestHost
    from firmware.table.requests.transfers import CreditLimits


class RequestDesk(Protocol):
    """What the SAS commands use of the request desk
    (:class:`firmware.table.requests.desk.RequestDesk` satisfies it; the desk calls these
    commands, so they name only this)."""

    host: RequestHost
    journal: Journal
    limits: CreditLimits
    sas_disable_on_loss: bool
    sas_refused_after: int
    sas_refusals: dict[Any, tuple[float, int]]

    def credits(self, tr: Transfer, extra: Mapping[str, Any] | None = None
                ) -> tuple[bool, str]: ...

HOST_LOSS = "sas host lost"


def run_sas(desk: RequestDesk, args: Mapping[str, Any]) -> tuple[bool, str]:
    host = desk.host
    t = host.game
    op = args.get("op")
    if op == "taken":
        more = {"recovered": True} if args.get("recovered") else {}  # from the link's marks
        host.event(EventCode.SAS_EXCEPTION_TAKEN, t.round_no,
                   address=int(args["address"]), seq=int(args["seq"]), **more)
        return True, "taken"
    if op in ("disable", "enable"):
        return _gate(desk, str(op), int(args["seat"]), f"sas host (address {args['address']})")
    if op == "host":
        present = bool(args.get("present"))
        seats = [s for s in args.get("seats", ()) if isinstance(s, int) and s > 0]
        host.event(EventCode.SAS_HOST_BACK if present else EventCode.SAS_HOST_LOST,
                   t.round_no, seats=seats)
        if desk.sas_disable_on_loss and not present:
            for seat in seats:
                if seat not in host.floor_gate.closed_seats:
                    _gate(desk, "disable", seat, HOST_LOSS)
        elif present:
            for seat in _closed_by_loss(desk):
                if seat in seats:
                    _gate(desk, "enable", seat, HOST_LOSS)
        return True, "noted"
    if op == "transfer":
        return _transfer(desk, args)
    if op == "link":  # a line's link process died and is started again
        host.event(EventCode.SAS_LINK_RESTARTED, t.round_no, exit=args.get("exit"),
                   restarts=args.get("restarts"), addresses=list(args.get("addresses", ())))
        return True, "noted"
    return False, f"unknown SAS request {op!r}"


def _closed_by_loss(desk: RequestDesk) -> list[int]:
    """The closed seats whose last command was the host loss's (not the host's own
    shutdown, which only its startup undoes); read from the journal, so it holds across
    a restart."""
    last: dict[int, str] = {}
    for r in desk.journal.records(kinds=["event"]):
        if r.code == int(EventCode.FLOOR_COMMAND) and isinstance(r.body.get("seat"), int):
            last[int(r.body["seat"])] = str(r.body.get("by"))
    return sorted(s for s in desk.host.floor_gate.closed_seats if last.get(s) == HOST_LOSS)


def _gate(desk: RequestDesk, action: str, seat: int, by: str) -> tuple[bool, str]:
    gate = desk.host.floor_gate
    closed = seat in gate.closed_seats if seat else (gate.closed or gate.closing)
    if closed == (action == "disable"):
        return True, f"already {action}d"  # a repeat changes, and journals, nothing
    cmd: dict[str, Any] = {"action": action, "by": by}
    args: dict[str, Any] = {"command": cmd}
    if seat:
        cmd["seat"] = seat
    elif action == "enable":
        seq, by = _last_table_disable(desk)
        if not by.startswith("sas host"):
            # the table closed by the floor: a SAS host's startup does not overrule the
            # floor; refused, and journaled once for that disable (a repeating host does
            # not fill the journal)
            why = "the table was not closed by the SAS host: the floor enables it"
            if desk.sas_refused_after == seq:
                return False, why
            desk.sas_refused_after = seq
            args["refusal"] = why
    return desk.host.floor_gate.command(args, desk.host.game, desk.host.event)


def _last_table_disable(desk: RequestDesk) -> tuple[int, str]:
    """The record and source of the table's last table-wide disable."""
    for r in desk.journal.records(kinds=["event"], newest_first=True,
                                  codes=[int(EventCode.FLOOR_COMMAND)]):
        if r.body.get("action") == "disable" and "seat" not in r.body:
            return r.seq, str(r.body.get("by") or "")
    return 0, ""


def _transfer(desk: RequestDesk, args: Mapping[str, Any]) -> tuple[bool, str]:
    host = desk.host
    t = host.game
    try:
        seat = strict_int(args.get("seat"), "seat", 1, t.nseats)
        cents = strict_int(args.get("cents"), "cents", 1, desk.limits.per_transfer)
        kind = str(args.get("kind"))
        if kind not in ("credits-in", "credits-out"):
            raise TransferRefused(f"unknown transfer {kind!r}")
        tr = Transfer(kind, seat, cents, transfer_id(args.get("id")))
    except TransferRefused as exc:
        return _refused(desk, args, str(exc))
    gate = host.floor_gate
    if gate.closed or seat in gate.closed_seats:
        return _refused(desk, args, f"seat {seat} is disabled")
    extra = {"sas_txid": str(args["txid"]), "asset": int(args["asset"]),
             "patron": str(args.get("receipt", "")), "by": "sas"}
    ok, msg = desk.credits(tr, extra=extra)  # the input keeps source "attendant":
    # the meter proof knows a transfer by it (transfers open no round)
    if not ok:
        return _refused(desk, args, msg)
    return ok, msg


#: at most one refused SAS transfer journaled per machine in this many seconds (red team
#: F8: a flooding host must not fill the journal; the others are counted, then noted)
REFUSAL_EVERY_S = 1.0


def _refused(desk: RequestDesk, args: Mapping[str, Any], why: str) -> tuple[bool, str]:
    addr = args.get("address")
    now = time.monotonic()
    last, skipped = desk.sas_refusals.get(addr, (-1e9, 0))
    if now - last < REFUSAL_EVERY_S:
        desk.sas_refusals[addr] = (last, skipped + 1)
        return False, why
    desk.sas_refusals[addr] = (now, 0)
    desk.host.event(EventCode.SAS_TRANSFER_REFUSED, desk.host.game.round_no,
                    address=args.get("address"), txid=str(args.get("txid"))[:40],
                    cents=args.get("cents"), kind=args.get("kind"), reason=why[:200],
                    not_journaled_before=skipped)
    return False, why
