"""The attendant and bench commands: credit transfers (one durable transaction each),
status, faults, the floor's commands and forced draws.

A collaborator the controller holds (:class:`RequestDesk`): it owns the transfer ledger and
the credit limits, and asks its host (the controller, through
:class:`~firmware.table.ports.RequestHost`) for everything else.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from etgcore.money import dollars
from firmware.engine.inputs import CreditsIn, CreditsOut, Fault
from firmware.journal import Entry, EventCode, Journal, JournalError
from firmware.journal.meters import credit_deltas
from firmware.table.floor_gate import HISTORY_HOLD
from firmware.table.happenings import RequestHappening
from firmware.table.ports import RequestHost
from firmware.table.requests.transfers import (
    CreditLimits,
    Transfer,
    TransferLedger,
    TransferRefused,
    parse_transfer,
    transfer_id,
)


class RequestDesk:
    """Attendant and bench commands, carried out for ``host``."""

    def __init__(self, host: RequestHost, journal: Journal, limits: CreditLimits,
                 transfers: TransferLedger) -> None:
        self.host = host
        self.journal = journal
        self.limits = limits
        #: the ids of the credit transfers this journal applied (at most once each)
        self.transfers = transfers
        #: ``sas.disable_on_host_loss`` (the service sets it when the SAS link runs)
        self.sas_disable_on_loss = False
        #: the table disable a SAS startup was last refused for (journaled once each)
        self.sas_refused_after = -1
        #: per SAS address: when a refused transfer was last journaled, how many since not
        self.sas_refusals: dict[Any, tuple[float, int]] = {}

    def on_request(self, h: RequestHappening) -> None:
        ok, msg = self.run(h.name, h.args)
        if h.reply is not None:
            h.reply.put((ok, msg))

    def run(self, name: str, args: Mapping[str, Any]) -> tuple[bool, str]:
        """Carry out one command: ``(accepted, message)``."""
        host = self.host
        t = host.game
        if name in ("credits-in", "credits-out"):
            try:
                tr = parse_transfer(name, args, t.nseats, self.limits)
            except TransferRefused as exc:
                return False, str(exc)
            return self.credits(tr)
        if name == "transfer-status":
            try:
                tid = transfer_id(args.get("id"))
            except TransferRefused as exc:
                return False, str(exc)
            if tid is None:
                return False, "transfer-status needs the transfer's id"
            return True, json.dumps(self.transfers.status(tid))
        if name == "status":
            return True, json.dumps(host.status())
        if name == "fault":
            code, detail = str(args["code"]), str(args.get("detail", ""))
            if code == "DISPLAY":
                host.event(EventCode.DISPLAY_FAILURE, t.round_no, detail=detail)
            ok = host.take(Fault(code, detail), "table")
            return ok, "tilted" if ok else "refused"
        if name == "floor":
            return host.floor_gate.command(args, t, host.event)
        if name == "sas":  # a SAS host's request, from the link (firmware.table.sas)
            from firmware.table.sas.commands import run_sas

            return run_sas(self, args)
        if name == "journal-failure":  # the table's own prefix audit found tampering
            why = str(args.get("why", "journal failure"))
            self.journal.refused = why  # nothing more is written into it (issue 42)
            host.fail(why, None)
            return True, "stopped"
        if name == "history-proof":  # an outcome of the prefix audit: an event each
            return history_proof(host, args)
        if name == "floor-witness":  # the floor's acknowledgement, while held for it
            from firmware.table.service.floor_witness import witness_arrived

            return witness_arrived(host, self.journal, args.get("ack"))
        if name == "force-draw":
            if not t.bench:
                return False, "forced draws are a bench power; production mode refuses them"
            values = args.get("values")
            if not isinstance(values, dict) or not values or not all(
                    isinstance(k, str) and type(v) is int and abs(v) < 2**31
                    for k, v in values.items()):  # bad bench input: one line, no tilt
                return False, ("force-draw: values must be an object of draw names to "
                               f"integers, e.g. {{\"bingo_target\": 21}} (got {values!r:.80})")
            host.force_draw(dict(values))
            return True, "queued"
        return False, f"unknown command {name!r}"

    def credits(self, tr: Transfer, extra: Mapping[str, Any] | None = None
                ) -> tuple[bool, str]:
        """A credit transfer: the input, its event (with the client's id) and its meters
        in ONE durable transaction, then the engine. A kill -9 between two transactions
        would leave the replayed credits and the meters apart, so the engine is asked
        first (a pure query) and a refused transfer writes nothing. An id seen before is
        answered from the journal, never applied again. ``extra``: more facts for the
        event (a SAS transfer's host transaction id, asset number and patron data)."""
        seat, signed = tr.seat, tr.signed
        done = f"seat {seat}: {dollars(signed, sign=True)}"
        if tr.transfer_id is not None:
            prior = self.transfers.lookup(tr.transfer_id)
            if prior is not None:
                if not tr.same_as(prior):
                    return False, (f"transfer id {tr.transfer_id} was already used for "
                                   f"{prior['kind']} seat {prior['seat']} "
                                   f"{dollars(prior['cents'])} (record {prior['seq']}); "
                                   "choose a new id")
                return True, f"{done} (already applied, record {prior['seq']}; not again)"
        host = self.host
        if host.failure:
            return False, host.failure
        t = host.game
        inp = CreditsIn(seat, tr.cents) if signed > 0 else CreditsOut(seat, tr.cents)
        if signed > 0 and t.seats[seat - 1].credits + tr.cents > self.limits.per_seat:
            return False, (f"seat {seat} would hold more than the maximum of "
                           f"{dollars(self.limits.per_seat)} (table.max_seat_credits)")
        why = t.credits_refusal(inp)
        if why is not None:
            return False, why
        code = EventCode.CREDITS_IN if signed > 0 else EventCode.CREDITS_OUT
        body: dict[str, Any] = {"seat": seat, "cents": tr.cents, **(extra or {})}
        if tr.transfer_id is not None:
            body["transfer"] = tr.transfer_id
        try:
            written = self.journal.append(
                [
                    Entry("input", {"input": inp.to_json(), "source": "attendant"}, t.round_no),
                    Entry("event", body, t.round_no, int(code)),
                ],
                credit_deltas(seat, signed),
            )
        except JournalError as exc:
            host.fail(f"journal failure: {exc}", None)
            return False, str(exc)
        t.apply(inp)  # the query said it is taken: the engine is deterministic
        if tr.transfer_id is not None:
            self.transfers.record(tr.transfer_id, tr.kind, seat, tr.cents, written[-1].seq)
        return True, done


def history_proof(host: RequestHost, args: Mapping[str, Any]) -> tuple[bool, str]:
    """The background proof's outcome (firmware.table.service.prefix_audit): proven lifts
    the hold; not finished keeps it, with the next try. Each is an event."""
    outcome = str(args.get("outcome"))
    facts = {"attempt": int(args.get("attempt") or 0)}
    if outcome == "proven":
        host.event(EventCode.HISTORY_PROVEN, None, **facts)
        host.floor_gate.holds.pop(HISTORY_HOLD, None)
        return True, "proven"
    host.event(EventCode.HISTORY_UNPROVEN, None, **facts,
               problem=str(args.get("problem") or "")[:300],
               retry_in_s=args.get("retry_in"))
    return True, "not proven yet"
