"""Two judgements the controller makes about the shoe and its tilts (no I/O).

**Is it still the same shoe?** After every ``HEL`` the controller asks the shoe for its
status; a shoe that reports a different number of cards dealt since its last ``NEW``
than the engine accounted for cannot be the shoe the engine knows (it lost its memory, it
was swapped, or cards left it that the table never accounted for). Dealing on would tilt
on every card the engine believes already gone ("all 6 of it in this shoe were already
read"), round after round, so the table holds for a new shoe instead (SHUFFLE).

**Is it the same tilt again?** A tilt that the dealer resumes and that comes straight
back (the same cause code, again and again within one round) is escalated: a shoe
accounting tilt (an impossible or unexpected card, a restart) to a new-shoe hold, any
other to a tilt that no device report clears and only VOID ends.
"""

from __future__ import annotations

from typing import Protocol

from firmware.engine.inputs import Fault
from firmware.journal import EventCode
from firmware.table.steps import Log, Step, Take

#: the same tilt code this many times in one round is escalated
REPEAT_LIMIT = 3
#: tilts that say the engine's picture of the shoe is wrong: escalated to a new-shoe hold
SHOE_ACCOUNTING = frozenset(("BADCARD", "UNEXPECTED", "HEL", "PROTOCOL", "MISREAD", "DOUBLE"))


class EngineShoe(Protocol):
    in_play: bool
    cards_dealt: int


def shoe_mismatch(shoe: EngineShoe, state: str | None, count: int | None) -> str | None:
    """Why the shoe that answered after a restart cannot be the engine's shoe, or None."""
    if not shoe.in_play or count is None:
        return None  # no shoe in play: a new one is due anyway
    if count != shoe.cards_dealt:
        return (f"after its restart the shoe reports {count} cards dealt ({state}), the "
                f"table accounted for {shoe.cards_dealt}: not the same shoe; load a new "
                "shoe (SHUFFLE)")
    return None


class RepeatWatch:
    """Counts tilts by cause code within one round (reset when a round ends)."""

    def __init__(self, limit: int = REPEAT_LIMIT) -> None:
        self.limit = limit
        self._seen: dict[str, int] = {}

    def reset(self) -> None:
        self._seen.clear()

    def seen(self, code: str) -> int:
        """Count one more tilt of ``code``; return how many this round."""
        self._seen[code] = self._seen.get(code, 0) + 1
        return self._seen[code]

    def escalation(self, code: str) -> str | None:
        """The fault code to escalate to once ``code`` reached the limit, else None."""
        if code in ("SHOE", "REPEAT") or self._seen.get(code, 0) < self.limit:
            return None
        return "SHOE" if code in SHOE_ACCOUNTING else "REPEAT"

    def steps_for(self, code: str, cause: str) -> list[Step]:
        """Count one more tilt of ``code``; at the limit, the record and the fault it is
        escalated to (a tilt the dealer resolves: resuming into it once more would only
        loop), and the count starts again."""
        n = self.seen(code)
        to = self.escalation(code)
        if to is None:
            return []
        self.reset()
        return [Log(EventCode.TILT_REPEATED, {"code": code, "times": n, "escalated": to}),
                Take(Fault(to, f"{code} {n} times in this round (last: {cause})"), "table")]
