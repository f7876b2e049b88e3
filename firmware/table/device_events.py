"""The controller's handling of what the devices report: shoe events, seat-button
presses (with the pending 1x-4x double) and console keys.

A mixin of ``Controller`` (firmware.table.controller): every happening still becomes
engine inputs through ``Controller.feed`` (journal first, then the engine).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from drivers.shoe.events import SHOE_FAULT_CODES, ShoeEvent
from firmware.engine import phases as P
from firmware.engine.inputs import Decision, Fault, FaultCleared, Input
from firmware.engine.rules import Rules
from firmware.engine.table import Table
from firmware.table import translate
from firmware.table.events import EventCode
from firmware.table.happenings import PanelHappening
from firmware.table.shoe_checks import shoe_mismatch

if TYPE_CHECKING:
    from firmware.table.pending_double import DoubleChooser
    from firmware.table.ports import ShoePort

log = logging.getLogger("etg.table")


class DeviceEvents:
    """Shoe events, seat buttons and console keys; mixed into ``Controller``."""

    # provided by Controller
    table: Table
    rules: Rules
    shoe: ShoePort | None
    clock: Callable[[], float]
    doubles: DoubleChooser
    recall_held: bool
    stuck: set[tuple[int | None, str]]
    _gate: str | None
    _gate_at: float
    shoe_check_due: bool

    if TYPE_CHECKING:
        def feed(self, inp: Input, source: str) -> bool: ...
        def event(self, code: EventCode, round_no: int | None = None, /,
                  **body: Any) -> None: ...
        def refresh(self) -> None: ...
        def resync_shoe(self) -> None: ...

    # -- shoe events -----------------------------------------------------------------------

    def _on_shoe(self, ev: ShoeEvent) -> None:
        t = self.table
        k = ev.kind
        if k == "card":
            self._gate_at = self.clock()
        if k == "fault":
            code = EventCode.SHOE_LID_OPEN if ev.code == "LID" else EventCode.SHOE_FAULT
            if ev.code not in SHOE_FAULT_CODES:
                code = EventCode.SHOE_PROTOCOL
            self.event(code, t.round_no, code=ev.code, detail=ev.detail or "", raw=ev.raw or "")
        elif k == "link-down":
            self.event(EventCode.SHOE_LINK_DOWN, t.round_no, detail=ev.detail or "")
        elif k == "link-up":
            self.event(EventCode.SHOE_LINK_UP, t.round_no)
        elif k == "hello":
            self.resync_shoe()
            self.shoe_check_due = True  # compared with the engine's shoe at its STA
            if self.shoe is not None:
                self.shoe.query()
            if t.phase in P.IN_ROUND or t.phase == P.TILT:
                self.event(EventCode.SHOE_REBOOT, t.round_no, serial=ev.serial or "",
                           raw=ev.raw or "")
        elif k == "cut":
            self.event(EventCode.SHOE_CUT_CARD, t.round_no)
        elif k == "empty":
            self.event(EventCode.SHOE_EMPTY, t.round_no)
        elif k == "card" and t.expecting().kind != "card":
            self.event(EventCode.SHOE_UNEXPECTED_CARD, t.round_no, raw=ev.raw or "")
        elif k == "nak" and ev.command == "ULK":
            # The gate stayed shut (a shoe still in FAULT answers NAK,STATE): a card that is
            # due will never come, so pause the round until the shoe reports itself clear;
            # resuming sends ULK again.
            self._gate = None
            if t.expecting().kind == "card":
                detail = f"the shoe refused to open its gate (NAK {ev.code or ''})".strip()
                self.event(EventCode.SHOE_FAULT, t.round_no, code="GATE", detail=detail,
                           raw=ev.raw or "")
                self.feed(Fault("SENSOR", detail), "shoe")
        for inp in translate.shoe_inputs(ev):
            self.feed(inp, "shoe")
        if k == "status" and self.shoe_check_due:
            self.shoe_check_due = False
            why = shoe_mismatch(t.shoe, ev.state, ev.count)
            if why is not None:
                self.event(EventCode.SHOE_MISMATCH, t.round_no, detail=why, raw=ev.raw or "")
                self.feed(Fault("SHOE", why), "shoe")

    # -- buttons ---------------------------------------------------------------------------

    def _on_panel(self, h: PanelHappening) -> None:
        t = self.table
        if h.kind == "stuck":
            where = f"seat {h.seat} {h.button}" if h.seat else f"console {h.button}"
            self.stuck.add((h.seat, h.button))
            self.event(EventCode.STUCK_KEY, t.round_no, where=where)
            self.feed(Fault("STUCK", f"{where} held down"), "panel")
            return
        if h.kind == "release" and (h.seat, h.button) in self.stuck:
            self.stuck.discard((h.seat, h.button))
            if not self.stuck:
                self.feed(FaultCleared("STUCK"), "panel")
            return
        if h.kind == "fault":
            self.feed(Fault("PANEL", h.detail or "panel scan stopped"), "panel")
            return
        if h.seat is None:
            self._on_console(h)
            return
        if h.kind != "press":
            return
        if self.doubles.pending is not None:
            self._place_double(self.doubles.press(h.seat, h.button, self.clock()))
            return
        view = t.public_view()
        what = translate.press_input(
            h.button, h.seat, view, double_times=tuple(self.rules.double_times),
            wager_refusal=t.wager_refusal, optional=self._optional_wager(),
        )
        if what is None:
            log.debug("seat %s %s: not accepted now", h.seat, h.button)
        elif what == "pending-double":
            hand = view["expecting"]["hand"] or 1
            self.doubles.start(h.seat, hand, self._double_sizes(h.seat, hand), self.clock())
        elif isinstance(what, Input):
            self.feed(what, "panel")

    def _optional_wager(self) -> translate.OptionalWager | None:
        """The optional wager the rules offer (Push 22), placed with INSURANCE during
        betting (docs/table.md), judged by the engine."""
        names = [n for m in self.rules.mechanisms for n in m.optional_wagers]
        return (names[0], self.table.side_wager_refusal) if names else None

    def _double_sizes(self, seat: int, hand: int) -> tuple[int, ...]:
        """The double sizes the engine would take now (its query: the seat's credits, the
        variation's stake rules and the legal actions all decide)."""
        return tuple(
            times for times in sorted(self.rules.double_times)
            if self.table.decision_refusal(Decision(seat, hand, "double", times=times)) is None
        )

    def _place_double(self, decision: Decision | None) -> None:
        """Feed the double the chooser placed (if it placed one)."""
        if decision is not None:
            self.feed(decision, "panel")
            self.refresh()

    def _on_console(self, h: PanelHappening) -> None:
        t = self.table
        if h.button == "RECALL":
            held = h.kind == "press"
            if held != self.recall_held:
                self.recall_held = held
                if held:
                    self.event(EventCode.KEY_RECALL, t.round_no)
            return
        if h.kind != "press":
            return
        if h.button == "VOID":
            self.event(EventCode.KEY_VOID, t.round_no)
        inp = translate.console_input(h.button, t.public_view())
        if inp is None:
            return
        accepted = self.feed(inp, "console")
        if accepted and h.button == "SHUFFLE":
            self.event(EventCode.SHOE_NEW, t.round_no, decks=self.rules.decks)
            if self.shoe is not None:
                self.shoe.new(self.rules.decks)
