"""The floor's disable and enable, as the table carries them out.

A disable closes the table only between rounds: a round in play (wagers placed, cards
out, a tilt) is finished first — the floor never decides a round. Closed, the table takes
no wager until an enable; everything else (credits out, recall, the supervisor) works.
Every floor command is journaled, taken or refused, and the state is rebuilt from those
events on restart, so a closed table stays closed across a power cut.

A command may name one seat (a SAS host's shutdown of the seat's gaming machine,
firmware.table.sas): the seat then takes no new wager (taking one back is allowed) while
the rest of the table plays; the wagers it already has in the round in play are settled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from firmware.engine.game import Game
from firmware.engine.inputs import Input, SideWager, Wager
from firmware.journal import EventCode, Journal
from firmware.table.round_state import in_round

EventWriter = Callable[..., None]
Refusal = Callable[[int, int], "str | None"]

#: the hold while the journal's history is unproven (firmware.table.service.prefix_audit)
HISTORY_HOLD = "history"
#: the hold while a required floor witness is not had (firmware.table.service.floor_witness)
WITNESS_HOLD = "witness"


class FloorGate:
    def __init__(self, closed: bool = False, closing: bool = False) -> None:
        self.closed = closed
        self.closing = closing  # a disable waits for the round in play
        #: the table's own holds (name -> why), like a disable without a floor command:
        #: the round in play finishes, no new one is dealt (an unproven history, a floor
        #: witness not yet had); shown on the display and in the floor's status
        self.holds: dict[str, str] = {}
        self.closed_seats: set[int] = set()  # seats disabled one by one (SAS)

    @property
    def shut(self) -> bool:
        """No new wager between rounds: closed by the floor, or held by the table."""
        return self.closed or bool(self.holds)

    @property
    def held(self) -> str | None:
        """Why the table deals no new round, or None."""
        return "; ".join(self.holds.values()) or None

    @classmethod
    def from_journal(cls, journal: Journal) -> FloorGate:
        gate = cls()
        for r in journal.records(kinds=["event"]):
            if r.code == EventCode.FLOOR_COMMAND and isinstance(r.body.get("seat"), int):
                gate._seat(r.body)
            elif r.code == EventCode.FLOOR_COMMAND:
                if r.body.get("action") == "disable":
                    gate.closing = not gate.closed
                elif r.body.get("action") == "enable":
                    gate.closed = gate.closing = False
            elif r.code == EventCode.TABLE_CLOSED:
                gate.closed, gate.closing = True, False
            elif r.code == EventCode.TABLE_OPENED:
                gate.closed = gate.closing = False
        return gate

    def _seat(self, cmd: Mapping[str, Any]) -> bool:
        """A one-seat command; whether it changed anything."""
        seat = int(cmd["seat"])
        was = seat in self.closed_seats
        if cmd.get("action") == "disable":
            self.closed_seats.add(seat)
        elif cmd.get("action") == "enable":
            self.closed_seats.discard(seat)
        return was != (seat in self.closed_seats)

    def refuses(self, inp: Input, game: Game) -> str | None:
        if not isinstance(inp, Wager | SideWager):
            return None
        if inp.seat in self.closed_seats and inp.amount > 0:
            return f"seat {inp.seat} is disabled by the slot system"
        if in_round(game):
            return None
        if self.closed:
            return "the floor has closed this table"
        return f"holding play: {self.held}" if self.holds else None

    def lamp_refusal(self, base: Refusal) -> Refusal:
        """The BET lamps' refusal: the engine's (``base``), none lit while the floor keeps
        the table closed or the table holds play, none at a seat its slot system disabled."""
        closed, held, seats = self.closed, self.held, frozenset(self.closed_seats)

        def refuse(seat: int, amount: int) -> str | None:
            if closed:
                return "the floor has closed this table"
            if held:
                return f"holding play: {held}"
            if seat in seats:
                return "disabled by the slot system"
            return base(seat, amount)

        return refuse

    def command(self, args: Mapping[str, Any], game: Game, event: EventWriter) -> tuple[bool, str]:
        """A floor command handed over by the floor link: ``{"command": ..., "refusal":
        None or why}``; journaled either way."""
        cmd = dict(args.get("command") or {})
        facts = {k: cmd.get(k) for k in ("id", "action", "by", "table", "issued", "reason",
                                         "seed", "seat") if k in cmd}
        refusal = args.get("refusal")
        if refusal:
            event(EventCode.FLOOR_COMMAND_REFUSED, game.round_no, reason=str(refusal),
                  **facts)
            return False, str(refusal)
        event(EventCode.FLOOR_COMMAND, game.round_no, **facts)
        if isinstance(cmd.get("seat"), int):
            self._seat(cmd)
            return True, f"seat {cmd['seat']} {cmd.get('action')}d"
        if cmd.get("action") == "authenticate":  # the floor link answers it; nothing here
            return True, "software signature requested"
        if cmd.get("action") == "enable":
            was = self.closed or self.closing
            self.closed = self.closing = False
            if was:
                event(EventCode.TABLE_OPENED, game.round_no, by=cmd.get("by"))
            return True, "enabled"
        if not self.closed:
            self.closing = True
            self.settle(game, event)
        return True, "closed" if self.closed else "closing after the round in play"

    def settle(self, game: Game, event: EventWriter) -> None:
        """Close a closing table once no round is in play (after every change)."""
        if self.closing and not in_round(game):
            self.closing, self.closed = False, True
            event(EventCode.TABLE_CLOSED, game.round_no)
