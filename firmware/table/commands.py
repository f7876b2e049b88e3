"""The controller's attendant and bench commands: credit transfers (one durable
transaction each), status, faults and forced draws.

A mixin of ``Controller`` (firmware.table.controller).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from etgcore.money import dollars
from firmware.engine.inputs import Fault, Input
from firmware.engine.table import Table
from firmware.table.events import EventCode
from firmware.table.happenings import CommandHappening
from firmware.table.journal import Entry, Journal, JournalError
from firmware.table.meters import credit_deltas
from firmware.table.transfers import (
    CreditLimits,
    Transfer,
    TransferLedger,
    TransferRefused,
    parse_transfer,
    transfer_id,
)

if TYPE_CHECKING:
    from firmware.table.floor_gate import FloorGate
    from firmware.table.pending_double import DoubleChooser


class Commands:
    """Attendant and bench commands; mixed into ``Controller``."""

    # provided by Controller
    table: Table
    journal: Journal
    forced_draws: list[dict[str, int]]
    doubles: DoubleChooser
    failure: str | None
    finals: int
    handled: Counter[str]
    floor_gate: FloorGate
    limits: CreditLimits
    transfers: TransferLedger

    if TYPE_CHECKING:
        def feed(self, inp: Input, source: str) -> bool: ...
        def event(self, code: EventCode, round_no: int | None = None, /,
                  **body: Any) -> None: ...
        def _fail(self, why: str, code: EventCode | None) -> None: ...
        def _draw(self, domain: Mapping[str, tuple[int, ...]]) -> None: ...

    def _on_command(self, h: CommandHappening) -> None:
        ok, msg = self.command(h.name, h.args)
        if h.reply is not None:
            h.reply.put((ok, msg))

    def command(self, name: str, args: Mapping[str, Any]) -> tuple[bool, str]:
        t = self.table
        if name in ("credits-in", "credits-out"):
            try:
                tr = parse_transfer(name, args, t.nseats, self.limits)
            except TransferRefused as exc:
                return False, str(exc)
            return self._credits(tr)
        if name == "transfer-status":
            try:
                tid = transfer_id(args.get("id"))
            except TransferRefused as exc:
                return False, str(exc)
            if tid is None:
                return False, "transfer-status needs the transfer's id"
            import json

            return True, json.dumps(self.transfers.status(tid))
        if name == "status":
            import json

            view = t.public_view()
            return True, json.dumps({
                "view": view, "rounds": self.finals, "failure": self.failure,
                "handled": dict(self.handled), "forced_draws": len(self.forced_draws),
                "pending_double": self.doubles.public(),
            })
        if name == "fault":
            code, detail = str(args["code"]), str(args.get("detail", ""))
            if code == "DISPLAY":
                self.event(EventCode.DISPLAY_FAILURE, t.round_no, detail=detail)
            ok = self.feed(Fault(code, detail), "table")
            return ok, "tilted" if ok else "refused"
        if name == "floor":
            return self.floor_gate.command(args, t, self.event)
        if name == "force-draw":
            if not t.bench:
                return False, "forced draws are a bench power; production mode refuses them"
            self.forced_draws.append({str(k): int(v) for k, v in args["values"].items()})
            if t.expecting().kind == "draw":
                self._draw(t.expecting().draw)
            return True, "queued"
        return False, f"unknown command {name!r}"

    def _credits(self, tr: Transfer) -> tuple[bool, str]:
        """A credit transfer: the input, its event (with the client's id) and its meters
        in ONE durable transaction, then the engine. A kill -9 between two transactions
        would leave the replayed credits and the meters apart, so the engine is asked
        first (a pure query) and a refused transfer writes nothing. An id seen before is
        answered from the journal, never applied again."""
        from firmware.engine.inputs import CreditsIn, CreditsOut

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
        if self.failure:
            return False, self.failure
        t = self.table
        inp = CreditsIn(seat, tr.cents) if signed > 0 else CreditsOut(seat, tr.cents)
        if signed > 0 and t.seats[seat - 1].credits + tr.cents > self.limits.per_seat:
            return False, (f"seat {seat} would hold more than the maximum of "
                           f"{dollars(self.limits.per_seat)} (table.max_seat_credits)")
        why = t.credits_refusal(inp)
        if why is not None:
            return False, why
        code = EventCode.CREDITS_IN if signed > 0 else EventCode.CREDITS_OUT
        body: dict[str, Any] = {"seat": seat, "cents": tr.cents}
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
            self._fail(f"journal failure: {exc}", None)
            return False, str(exc)
        t.apply(inp)  # the query said it is taken: the engine is deterministic
        if tr.transfer_id is not None:
            self.transfers.record(tr.transfer_id, tr.kind, seat, tr.cents, written[-1].seq)
        return True, done
