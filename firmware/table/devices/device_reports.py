"""What the devices report, turned into the steps the controller takes: shoe reports,
seat-button presses (with the pending 1x-4x double) and console keys.

A collaborator the controller holds (:class:`DeviceReports`). It owns what only it needs
(the stuck keys, the RECALL key, whether a HEL asks for a shoe check) and reads the game,
but it never writes the journal nor applies an input: each report becomes a list of
:data:`Step` that the controller carries out in order (journal first, then the game). So
a card takes one way, report -> steps -> the controller's ``take``, and whether a card
was due is decided in one place, the game: a card the game did not expect pauses it with
the tilt code ``UNEXPECTED``, and only then does the controller write the shoe's
unexpected-card record (:attr:`Take.if_paused`). The clock is passed in.
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
from firmware.table.steps import LoadShoe, Log, Step, Take

log = logging.getLogger("etg.table")


class DeviceReports:
    """Shoe reports, seat buttons and console keys, turned into steps."""

    def __init__(self, shoe: ShoeControl, doubles: DoubleChooser) -> None:
        self.shoe = shoe
        self.doubles = doubles
        #: the RECALL key is held (the screen shows the last rounds)
        self.recall_held = False
        #: the attendant screen's page while the key is held (DEAL steps it; 0: recall)
        self.attendant_page = 0
        #: keys reported stuck and not yet released: (seat or None for the console, button)
        self.stuck: set[tuple[int | None, str]] = set()
        #: a HEL came: compare the shoe's STA with the game's shoe
        self.shoe_check_due = False

    # -- shoe reports ----------------------------------------------------------------------

    def on_shoe(self, report: ShoeReport, game: Game, now: float) -> list[Step]:
        steps: list[Step] = self._shoe_records(report, game, now)
        for inp in translate.shoe_inputs(report):
            paused = {}
            if isinstance(report, CardDealt):
                paused = {"UNEXPECTED": Log(EventCode.SHOE_UNEXPECTED_CARD,
                                            {"raw": report.raw or ""})}
            steps.append(Take(inp, "shoe", if_paused=paused))
        if isinstance(report, ShoeStatus) and self.shoe_check_due:
            self.shoe_check_due = False
            why = shoe_mismatch(game.shoe, report.state, report.count)
            if why is not None:
                steps += [Log(EventCode.SHOE_MISMATCH, {"detail": why, "raw": report.raw or ""}),
                          Take(Fault("SHOE", why), "shoe")]
        return steps

    def _shoe_records(self, report: ShoeReport, game: Game, now: float) -> list[Step]:
        """The event-log records a report makes (and the shoe state it changes)."""
        raw = report.raw or ""
        match report:
            case CardDealt():
                self.shoe.card_came(now)
            case ShoeFault():
                code = EventCode.SHOE_LID_OPEN if report.code == "LID" else EventCode.SHOE_FAULT
                return [Log(code, {"code": report.code, "detail": report.detail or "",
                                   "raw": raw})]
            case ProtocolFault():
                return [Log(EventCode.SHOE_PROTOCOL, {"code": report.code,
                                                      "detail": report.detail, "raw": raw})]
            case LinkDown():
                return [Log(EventCode.SHOE_LINK_DOWN, {"detail": report.detail})]
            case LinkUp():
                return [Log(EventCode.SHOE_LINK_UP)]
            case ShoeHello():
                self.shoe.resync()
                self.shoe_check_due = True  # compared with the game's shoe at its STA
                self.shoe.query(now)
                if game.phase in P.IN_ROUND or game.phase == P.TILT:
                    return [Log(EventCode.SHOE_REBOOT, {"serial": report.serial, "raw": raw})]
            case CutCardReached():
                return [Log(EventCode.SHOE_CUT_CARD)]
            case ShoeEmpty():
                return [Log(EventCode.SHOE_EMPTY)]
            case CommandRefused(command="ULK"):
                return self._gate_refused(report, game)
        return []

    def _gate_refused(self, report: CommandRefused, game: Game) -> list[Step]:
        """The gate stayed shut (a shoe still in FAULT answers NAK,STATE): a card that is
        due will never come, so pause the round until the shoe reports itself clear;
        resuming sends ULK again."""
        self.shoe.gate_refused()
        if game.expecting().kind != "card":
            return []
        detail = f"the shoe refused to open its gate (NAK {report.code or ''})".strip()
        return [Log(EventCode.SHOE_FAULT, {"code": "GATE", "detail": detail,
                                           "raw": report.raw or ""}),
                Take(Fault("SENSOR", detail), "shoe")]

    # -- buttons ---------------------------------------------------------------------------

    def on_panel(self, h: PanelHappening, game: Game, now: float) -> list[Step]:
        if h.kind == "stuck":
            where = f"seat {h.seat} {h.button}" if h.seat else f"console {h.button}"
            self.stuck.add((h.seat, h.button))
            return [Log(EventCode.STUCK_KEY, {"where": where}),
                    Take(Fault("STUCK", f"{where} held down"), "panel")]
        if h.kind == "release" and (h.seat, h.button) in self.stuck:
            self.stuck.discard((h.seat, h.button))
            return [] if self.stuck else [Take(FaultCleared("STUCK"), "panel")]
        if h.kind == "fault":
            return [Take(Fault("PANEL", h.detail or "panel scan stopped"), "panel")]
        if h.seat is None:
            return self._on_console(h, game)
        if h.kind != "press" or self.attendant_screen_up:
            return []  # (the attendant screen covers the table: no seat plays blind)
        if self.doubles.pending is not None:
            return placed(self.doubles.press(h.seat, h.button, now))
        view = game.public_view()
        what = translate.press_input(
            h.button, h.seat, view, double_times=tuple(game.rules.double_times),
            wager_refusal=game.wager_refusal, optional=optional_wager(game),
        )
        if what is None:
            log.debug("seat %s %s: not accepted now", h.seat, h.button)
        elif what == "pending-double":
            hand = view["expecting"]["hand"] or 1
            self.doubles.start(h.seat, hand, double_sizes(game, h.seat, hand), now)
        elif isinstance(what, Input):
            return [Take(what, "panel")]
        return []

    @property
    def attendant_screen_up(self) -> bool:
        """DEAL has paged the attendant screen since the key was turned: it covers the
        table, so the seats' buttons wait until the key is released."""
        return self.recall_held and self.attendant_page > 0

    def _on_console(self, h: PanelHappening, game: Game) -> list[Step]:
        if h.button == "RECALL":
            held = h.kind == "press"
            if held != self.recall_held:
                self.recall_held = held
                self.attendant_page = 0
                if held:
                    return [Log(EventCode.KEY_RECALL)]
            return []
        if h.kind != "press":
            return []
        if self.recall_held and h.button == "DEAL":
            # the attendant key is turned: DEAL steps its screen's pages, it is no input
            self.attendant_page += 1
            return []
        steps: list[Step] = []
        if h.button == "VOID":
            steps.append(Log(EventCode.KEY_VOID))
        inp = translate.console_input(h.button, game.public_view())
        if inp is None:
            return steps
        then: tuple[Log | LoadShoe, ...] = ()
        if h.button == "SHUFFLE":
            decks = game.rules.decks
            then = (Log(EventCode.SHOE_NEW, {"decks": decks}), LoadShoe(decks))
        return [*steps, Take(inp, "console", then=then)]


def placed(decision: Decision | None) -> list[Step]:
    """The double the chooser placed (if it placed one)."""
    return [] if decision is None else [Take(decision, "panel")]


def optional_wager(game: Game) -> translate.OptionalWager | None:
    """The optional wagers the rules offer (Push 22, ...), placed with INSURANCE during
    betting (docs/table.md), judged by the game; None when there is none."""
    names = tuple(n for m in game.rules.mechanisms for n in m.optional_wagers)
    return (names, game.side_wager_refusal) if names else None


def double_sizes(game: Game, seat: int, hand: int) -> tuple[int, ...]:
    """The double sizes the game would take now (its query: the seat's credits, the
    variation's stake rules and the legal actions all decide)."""
    return tuple(
        times for times in sorted(game.rules.double_times)
        if game.decision_refusal(Decision(seat, hand, "double", times=times)) is None
    )
