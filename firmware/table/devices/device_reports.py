"""What the devices report, for the controller: shoe events, seat-button presses (with
the pending 1x-4x double) and console keys.

A collaborator the controller holds (:class:`DeviceReports`): it owns what only it needs
(the stuck keys, the RECALL key, whether a HEL asks for a shoe check) and turns every
happening into engine inputs through the host's ``feed`` (journal first, then the
engine), never touching the controller's own state. The clock is passed in.
"""

from __future__ import annotations

import logging

from drivers.shoe.reports import (
    CardDealt,
    CommandRefused,
    CutCardReached,
    LinkDown,
    LinkUp,
    ProtocolFault,
    ShoeEmpty,
    ShoeFault,
    ShoeHello,
    ShoeReport,
    ShoeStatus,
)
from firmware.engine import phases as P
from firmware.engine.game import Game
from firmware.engine.inputs import Decision, Fault, FaultCleared, Input
from firmware.journal import EventCode
from firmware.table.devices import translate
from firmware.table.devices.shoe_checks import shoe_mismatch
from firmware.table.devices.shoe_control import ShoeControl
from firmware.table.happenings import PanelHappening
from firmware.table.pending_double import DoubleChooser
from firmware.table.ports import TableHost

log = logging.getLogger("etg.table")


class DeviceReports:
    """Shoe events, seat buttons and console keys, handled for ``host``."""

    def __init__(self, host: TableHost, shoe: ShoeControl, doubles: DoubleChooser) -> None:
        self.host = host
        self.shoe = shoe
        self.doubles = doubles
        #: the RECALL key is held (the screen shows the last rounds)
        self.recall_held = False
        #: keys reported stuck and not yet released: (seat or None for the console, button)
        self.stuck: set[tuple[int | None, str]] = set()
        #: a HEL came: compare the shoe's STA with the engine's shoe
        self.shoe_check_due = False

    # -- shoe events -----------------------------------------------------------------------

    def on_shoe(self, ev: ShoeReport, now: float) -> None:
        host = self.host
        t = host.game
        match ev:
            case CardDealt():
                self.shoe.card_came(now)
                if t.expecting().kind != "card":
                    host.event(EventCode.SHOE_UNEXPECTED_CARD, t.round_no, raw=ev.raw or "")
            case ShoeFault():
                code = EventCode.SHOE_LID_OPEN if ev.code == "LID" else EventCode.SHOE_FAULT
                host.event(code, t.round_no, code=ev.code, detail=ev.detail or "",
                           raw=ev.raw or "")
            case ProtocolFault():
                host.event(EventCode.SHOE_PROTOCOL, t.round_no, code=ev.code, detail=ev.detail,
                           raw=ev.raw or "")
            case LinkDown():
                host.event(EventCode.SHOE_LINK_DOWN, t.round_no, detail=ev.detail)
            case LinkUp():
                host.event(EventCode.SHOE_LINK_UP, t.round_no)
            case ShoeHello():
                self.shoe.resync()
                self.shoe_check_due = True  # compared with the engine's shoe at its STA
                self.shoe.query(now)
                if t.phase in P.IN_ROUND or t.phase == P.TILT:
                    host.event(EventCode.SHOE_REBOOT, t.round_no, serial=ev.serial,
                               raw=ev.raw or "")
            case CutCardReached():
                host.event(EventCode.SHOE_CUT_CARD, t.round_no)
            case ShoeEmpty():
                host.event(EventCode.SHOE_EMPTY, t.round_no)
            case CommandRefused(command="ULK"):
                self._gate_refused(ev)
        for inp in translate.shoe_inputs(ev):
            host.take(inp, "shoe")
        if isinstance(ev, ShoeStatus) and self.shoe_check_due:
            self.shoe_check_due = False
            why = shoe_mismatch(t.shoe, ev.state, ev.count)
            if why is not None:
                host.event(EventCode.SHOE_MISMATCH, t.round_no, detail=why, raw=ev.raw or "")
                host.take(Fault("SHOE", why), "shoe")

    def _gate_refused(self, ev: CommandRefused) -> None:
        """The gate stayed shut (a shoe still in FAULT answers NAK,STATE): a card that is
        due will never come, so pause the round until the shoe reports itself clear;
        resuming sends ULK again."""
        host = self.host
        t = host.game
        self.shoe.gate_refused()
        if t.expecting().kind == "card":
            detail = f"the shoe refused to open its gate (NAK {ev.code or ''})".strip()
            host.event(EventCode.SHOE_FAULT, t.round_no, code="GATE", detail=detail,
                       raw=ev.raw or "")
            host.take(Fault("SENSOR", detail), "shoe")

    # -- buttons ---------------------------------------------------------------------------

    def on_panel(self, h: PanelHappening, now: float) -> None:
        host = self.host
        t = host.game
        if h.kind == "stuck":
            where = f"seat {h.seat} {h.button}" if h.seat else f"console {h.button}"
            self.stuck.add((h.seat, h.button))
            host.event(EventCode.STUCK_KEY, t.round_no, where=where)
            host.take(Fault("STUCK", f"{where} held down"), "panel")
            return
        if h.kind == "release" and (h.seat, h.button) in self.stuck:
            self.stuck.discard((h.seat, h.button))
            if not self.stuck:
                host.take(FaultCleared("STUCK"), "panel")
            return
        if h.kind == "fault":
            host.take(Fault("PANEL", h.detail or "panel scan stopped"), "panel")
            return
        if h.seat is None:
            self._on_console(h)
            return
        if h.kind != "press":
            return
        if self.doubles.pending is not None:
            self.place_double(self.doubles.press(h.seat, h.button, now))
            return
        view = t.public_view()
        what = translate.press_input(
            h.button, h.seat, view, double_times=tuple(t.rules.double_times),
            wager_refusal=t.wager_refusal, optional=optional_wager(t),
        )
        if what is None:
            log.debug("seat %s %s: not accepted now", h.seat, h.button)
        elif what == "pending-double":
            hand = view["expecting"]["hand"] or 1
            self.doubles.start(h.seat, hand, double_sizes(t, h.seat, hand), now)
        elif isinstance(what, Input):
            host.take(what, "panel")

    def place_double(self, decision: Decision | None) -> None:
        """Feed the double the chooser placed (if it placed one)."""
        if decision is not None:
            self.host.take(decision, "panel")
            self.host.refresh()

    def _on_console(self, h: PanelHappening) -> None:
        host = self.host
        t = host.game
        if h.button == "RECALL":
            held = h.kind == "press"
            if held != self.recall_held:
                self.recall_held = held
                if held:
                    host.event(EventCode.KEY_RECALL, t.round_no)
            return
        if h.kind != "press":
            return
        if h.button == "VOID":
            host.event(EventCode.KEY_VOID, t.round_no)
        inp = translate.console_input(h.button, t.public_view())
        if inp is None:
            return
        accepted = host.take(inp, "console")
        if accepted and h.button == "SHUFFLE":
            host.event(EventCode.SHOE_NEW, t.round_no, decks=t.rules.decks)
            self.shoe.new_shoe(t.rules.decks)


def optional_wager(game: Game) -> translate.OptionalWager | None:
    """The optional wager the rules offer (Push 22), placed with INSURANCE during
    betting (docs/table.md), judged by the engine."""
    names = [n for m in game.rules.mechanisms for n in m.optional_wagers]
    return (names[0], game.side_wager_refusal) if names else None


def double_sizes(game: Game, seat: int, hand: int) -> tuple[int, ...]:
    """The double sizes the engine would take now (its query: the seat's credits, the
    variation's stake rules and the legal actions all decide)."""
    return tuple(
        times for times in sorted(game.rules.double_times)
        if game.decision_refusal(Decision(seat, hand, "double", times=times)) is None
    )
