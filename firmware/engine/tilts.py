"""Shoe events, faults and tilts: the methods of :class:`~firmware.engine.table.Table` that
load a shoe, see the cut card or an empty shoe, and pause the round on a fault.

A hardware fault is not rejected: it tilts the table (nothing is settled while tilted;
``DEAL`` resumes once the fault has cleared, ``VOID`` returns every wager of the round).
They live here so each module holds one job (see :mod:`firmware.engine.table`).
"""

from __future__ import annotations

from typing import Any

from firmware.engine import phases as P
from firmware.engine.inputs import FAULT_CODES, Cut, Empty, Fault, FaultCleared, Hello, NewShoe
from firmware.engine.rejected import Rejected
from firmware.engine.state import TableState

#: faults that stay active until the device reports ready again
PERSISTENT_FAULTS = frozenset(("JAM", "LID", "SENSOR", "LINK", "STUCK", "PANEL", "RNG", "DISPLAY",
                               "REPEAT"))
#: tilts that no device report clears: the same fault again and again is the dealer's (or
#: the supervisor's) to resolve, by VOID
DEALER_RESOLVES = frozenset(("REPEAT",))
#: tilts that, arriving on top of another, become the tilt's code and first cause
OVERRIDING = frozenset(("REPEAT", "SHOE"))
#: how a tilt's cause reads for the table's own faults (shoe faults: "shoe fault CODE")
TABLE_FAULT_WORDS = {
    "STUCK": "a button is stuck", "PANEL": "the button panels failed",
    "POWER": "power failed during the round", "RNG": "the RNG failed",
    "DISPLAY": "the display failed", "STOPPED": "the table was stopped during the round",
    "INTERNAL": "internal error of the table", "REPEAT": "the same fault again",
    "PROTOCOL": "the shoe sent a frame the table refused",
    "SHOE": "the shoe is not the shoe the table accounted for",
}


class Tilt:
    """Why the table is paused, and whether the fault is still active."""

    __slots__ = ("active", "causes", "code", "resume_need", "resume_phase")

    def __init__(self, code: str, cause: str, active: bool, phase: str, need: str) -> None:
        self.code = code
        self.causes = [cause]
        self.active = active
        self.resume_phase = phase
        self.resume_need = need

    def public(self) -> dict[str, str]:
        if self.code in DEALER_RESOLVES:
            resolve = "the same fault repeated: VOID (supervisor) to end it"
        elif self.active:  # a fault still active under it comes first (DEAL is refused)
            resolve = f"clear the fault ({self.code}), then press DEAL to resume, or VOID"
        elif self.code == "SHOE" and self.resume_phase in P.IN_ROUND:
            resolve = "VOID (supervisor) the round, then load a new shoe (SHUFFLE)"
        elif self.code == "SHOE":
            resolve = "press DEAL, then load a new shoe (SHUFFLE)"
        else:
            resolve = "press DEAL to resume the round, or VOID (supervisor) to void it"
        return {"cause": self.causes[0], "code": self.code, "resolve": resolve}

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "causes": list(self.causes), "active": self.active,
                "resume_phase": self.resume_phase, "resume_need": self.resume_need}


class Tilting(TableState):
    """Shoe events, faults, tilt, resume and void (a base of Table; the state is
    declared in :class:`~firmware.engine.state.TableState`)."""

    __slots__ = ()

    # -- console: resume and void ----------------------------------------------------
    def _resume(self) -> None:
        t = self.tilt
        assert t is not None
        if t.active:
            raise Rejected(f"the fault is still active ({t.code}); clear it first, or VOID")
        if not self.shoe.in_play and t.resume_phase in P.IN_ROUND:
            raise Rejected("the shoe cannot be the one this round was dealt from: VOID the "
                           "round, then load a new shoe (SHUFFLE)")
        self.phase = t.resume_phase
        self.need = t.resume_need if self.shoe.in_play else P.SHOE
        self.tilt = None

    def _void(self) -> None:
        phase = self.tilt.resume_phase if self.tilt else self.phase
        staked = any(s.staked for s in self.seats)
        if phase not in P.IN_ROUND and not (phase == P.BETTING and staked):
            t = self.tilt
            if t is not None and t.code in DEALER_RESOLVES:  # a repeated fault between rounds
                self.tilt, self.phase = None, phase
                self.need = t.resume_need if self.shoe.in_play else P.SHOE
                self.audit.append(("void", t.causes[0]))
                return
            raise Rejected("VOID: no round in play to void")
        for s in self.seats:
            if s.net is None and s.staked:
                s.credits += s.staked
                s.returned = s.staked
                s.net = 0
        self.audit.append(("void", self.tilt.causes[0] if self.tilt else "supervisor"))
        self.tilt = None
        self.card_to = None
        self.phase = P.VOIDED
        self.need = P.SHOE if self.shoe.cut_card_seen or not self.shoe.in_play else P.WAGERS

    # -- shoe events -----------------------------------------------------------------
    def _on_new_shoe(self, inp: NewShoe) -> None:
        decks = self.rules.decks if inp.decks is None else inp.decks
        if decks != self.rules.decks:
            raise Rejected(f"the Rules Submission deals {self.rules.decks} decks, not {decks!r}")
        if self.phase not in P.BETWEEN and self.phase != P.NEW_SHOE:
            raise Rejected(f"a new shoe is loaded only between rounds (phase {self.phase})")
        if self.phase in (P.SETTLED, P.VOIDED):
            for s in self.seats:
                s.clear_round()
            self._reset_round()
        self.shoe.load(decks)
        self.burn_left = self.rules.burn_cards
        if self.burn_left:
            self.phase = P.NEW_SHOE
            self.need = P.CARD
        else:
            self.phase = P.BETTING
            self.need = P.WAGERS

    def _on_cut(self, inp: Cut) -> None:
        if not self.shoe.in_play:
            raise Rejected("cut card reported but no shoe is loaded")
        self.shoe.cut_card_seen = True
        self.audit.append(("cut", self.shoe.cards_dealt))
        if self.phase in (P.SETTLED, P.VOIDED):
            self.need = P.SHOE

    def _on_empty(self, inp: Empty) -> None:
        self.shoe.cut_card_seen = True
        if self.phase in P.IN_ROUND or self.phase == P.TILT:
            self._tilt("EMPTY", "the shoe is empty")
        elif self.phase in P.BETWEEN:
            self.need = P.SHOE  # nothing left to deal: wagers placed wait for the new shoe

    def _on_fault(self, inp: Fault) -> None:
        if inp.code not in FAULT_CODES:
            raise Rejected(f"unknown fault code {inp.code!r} (allowed: {', '.join(FAULT_CODES)})")
        detail = f": {inp.detail}" if inp.detail else ""
        words = TABLE_FAULT_WORDS.get(inp.code, f"shoe fault {inp.code}")
        if inp.code == "SHOE":
            self.shoe.in_play = False  # what it still holds is unknown: a new shoe is due
        self._tilt(inp.code, f"{words}{detail}", inp.code in PERSISTENT_FAULTS)

    def _device_clears(self) -> None:
        """A device reports itself ready: an active fault is cleared (not a repeated one)."""
        if self.tilt is not None and self.tilt.code not in DEALER_RESOLVES:
            self.tilt.active = False

    def _on_fault_cleared(self, inp: FaultCleared) -> None:
        self._device_clears()

    def _on_hello(self, inp: Hello) -> None:
        self._device_clears()
        if self.phase in P.IN_ROUND or self.phase == P.TILT:
            self._tilt("HEL", "the shoe restarted (HEL) during the round")

    def _tilt(self, code: str, cause: str, active: bool = False) -> None:
        if self.tilt is not None:
            self.tilt.causes.append(cause)
            self.tilt.active = self.tilt.active or active
            if code in OVERRIDING:  # what the dealer must do now: shown first
                self.tilt.code = code
                self.tilt.causes.insert(0, self.tilt.causes.pop())
            elif active:
                self.tilt.code = code
        else:
            self.tilt = Tilt(code, cause, active, self.phase, self.need)
            self.phase = P.TILT
            self.need = P.CONSOLE
        self.audit.append(("tilt", code, cause))
