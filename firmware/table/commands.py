"""The controller's attendant and bench commands: credit transfers (one durable
transaction each), status, faults and forced draws.

A mixin of ``Controller`` (firmware.table.controller).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from firmware.engine.inputs import Fault, Input
from firmware.engine.table import Rejected, Table
from firmware.table.events import EventCode
from firmware.table.happenings import CommandHappening
from firmware.table.journal import Entry, Journal, JournalError
from firmware.table.meters import credit_deltas

if TYPE_CHECKING:
    from firmware.table.device_events import PendingDouble
    from firmware.table.floor_gate import FloorGate


class Commands:
    """Attendant and bench commands; mixed into ``Controller``."""

    # provided by Controller
    table: Table
    journal: Journal
    forced_draws: list[dict[str, int]]
    pending_double: PendingDouble | None
    failure: str | None
    finals: int
    handled: Counter[str]
    floor_gate: FloorGate

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
            from firmware.engine.inputs import CreditsIn, CreditsOut

            seat, cents = int(args["seat"]), int(args["cents"])
            inp = CreditsIn(seat, cents) if name == "credits-in" else CreditsOut(seat, cents)
            return self._credits(inp, seat, cents if name == "credits-in" else -cents)
        if name == "status":
            import json

            view = t.public_view()
            pd = self.pending_double
            return True, json.dumps({
                "view": view, "rounds": self.finals, "failure": self.failure,
                "handled": dict(self.handled), "forced_draws": len(self.forced_draws),
                "pending_double": None if pd is None else {
                    "seat": pd.seat, "hand": pd.hand, "times": pd.times},
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

    def _credits(self, inp: Input, seat: int, signed: int) -> tuple[bool, str]:
        """A credit transfer: the input, its event and its meters in ONE durable
        transaction, then the engine. A kill -9 between two transactions would leave the
        replayed credits and the meters apart, so the engine is asked first (on a copy:
        transfers are rare) and a refused transfer writes nothing."""
        import copy

        if self.failure:
            return False, self.failure
        t = self.table
        try:
            copy.deepcopy(t).apply(inp)
        except Rejected as exc:
            return False, exc.reason
        code = EventCode.CREDITS_IN if signed >= 0 else EventCode.CREDITS_OUT
        try:
            self.journal.append(
                [
                    Entry("input", {"input": inp.to_json(), "source": "attendant"}, t.round_no),
                    Entry("event", {"seat": seat, "cents": abs(signed)}, t.round_no, int(code)),
                ],
                credit_deltas(seat, signed),
            )
        except JournalError as exc:
            self._fail(f"journal failure: {exc}", None)
            return False, str(exc)
        t.apply(inp)  # the copy took it: the engine is deterministic
        return True, f"seat {seat}: {signed:+d} cents"
