"""Faults and tilts: the part of a :class:`~firmware.engine.game.Game` that pauses the
round on a fault, resumes it and voids it.

A hardware fault is not rejected: it tilts the table (nothing is settled while tilted;
``DEAL`` resumes once the fault has cleared, ``VOID`` returns every wager of the round).
:class:`Tilts` owns the tilt; it pauses and resumes the :class:`~firmware.engine.round.Round`
and has the :class:`~firmware.engine.bank.Bank` return the stakes of a voided round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.engine import phases as P
from firmware.engine.inputs import FAULT_CODES, Fault
from firmware.engine.rejected import Rejected

if TYPE_CHECKING:
    from etgcore.view import TiltView
    from firmware.engine.bank import Bank
    from firmware.engine.round import Round
    from firmware.engine.shoe import Shoe

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

    def public(self) -> TiltView:
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


class Tilts:
    """The tilt in force (or None) and the faults, resume and void that change it."""

    __slots__ = ("bank", "paused_on", "round", "shoe", "tilt")

    def __init__(self, r: Round, bank: Bank, shoe: Shoe) -> None:
        self.round = r
        self.bank = bank
        self.shoe = shoe
        self.tilt: Tilt | None = None
        #: the tilt code the input being applied paused the game with (Game.paused_on)
        self.paused_on: str | None = None

    def cause(self) -> str | None:
        """The first cause of the tilt while the table is tilted, else None."""
        if self.round.phase != P.TILT:
            return None
        return self.tilt.causes[0] if self.tilt else ""

    # -- console: resume and void ----------------------------------------------------
    def resume_refusal(self) -> str | None:
        """Why DEAL would not resume the tilt now, or None: a pure query (the controller
        tells the panel's auto-player; :meth:`resume` refuses with the same reason)."""
        t = self.tilt
        if t is None:
            return "the table is not paused"
        if t.active:
            return f"the fault is still active ({t.code}); clear it first, or VOID"
        if not self.shoe.in_play and t.resume_phase in P.IN_ROUND:
            return ("the shoe cannot be the one this round was dealt from: VOID the round, "
                    "then load a new shoe (SHUFFLE)")
        return None

    def resume(self) -> None:
        t = self.tilt
        assert t is not None
        why = self.resume_refusal()
        if why is not None:
            raise Rejected(why)
        self.round.resume(t.resume_phase, t.resume_need if self.shoe.in_play else P.SHOE)
        self.tilt = None

    def void(self) -> None:
        r = self.round
        t = self.tilt
        phase = t.resume_phase if t else r.phase
        if phase not in P.IN_ROUND and not (phase == P.BETTING and self.bank.any_staked()):
            if t is not None and t.code in DEALER_RESOLVES:  # a repeated fault between rounds
                self.tilt = None
                r.resume(phase, t.resume_need if self.shoe.in_play else P.SHOE)
                r.record("void", t.causes[0])
                return
            raise Rejected("VOID: no round in play to void")
        self.bank.return_stakes()
        r.record("void", t.causes[0] if t else "supervisor")
        self.tilt = None
        r.voided()

    # -- faults ----------------------------------------------------------------------
    def fault(self, inp: Fault) -> None:
        if inp.code not in FAULT_CODES:
            raise Rejected(f"unknown fault code {inp.code!r} (allowed: {', '.join(FAULT_CODES)})")
        detail = f": {inp.detail}" if inp.detail else ""
        words = TABLE_FAULT_WORDS.get(inp.code, f"shoe fault {inp.code}")
        if inp.code == "SHOE":
            self.shoe.in_play = False  # what it still holds is unknown: a new shoe is due
        self.pause(inp.code, f"{words}{detail}", inp.code in PERSISTENT_FAULTS)

    def device_clears(self) -> None:
        """A device reports itself ready: an active fault is cleared (not a repeated one)."""
        if self.tilt is not None and self.tilt.code not in DEALER_RESOLVES:
            self.tilt.active = False

    def hello(self) -> None:
        """The shoe restarted: it is ready, but a round it was dealing is paused."""
        self.device_clears()
        if self.round.in_play:
            self.pause("HEL", "the shoe restarted (HEL) during the round")

    def pause(self, code: str, cause: str, active: bool = False) -> None:
        """Tilt the table (or add ``cause`` to the tilt in force)."""
        self.paused_on = code
        t = self.tilt
        r = self.round
        if t is not None:
            t.causes.append(cause)
            t.active = t.active or active
            if code in OVERRIDING:  # what the dealer must do now: shown first
                t.code = code
                t.causes.insert(0, t.causes.pop())
            elif active:
                t.code = code
        else:
            self.tilt = Tilt(code, cause, active, r.phase, r.need)
            r.pause()
        r.record("tilt", code, cause)
