"""The pending 1x-4x double as one small state machine: press, tick, lamps.

Where a variation lets a seat double for one to four times the wager, the panel has one
DOUBLE button: the first press offers the smallest size the engine would take, each
further press the next bigger one, and STAND (or :data:`DOUBLE_CONFIRM_S` without a
press) places it; the largest size is placed at once. While a double is pending only
that seat's DOUBLE (when a bigger size is still possible) and STAND are lit.
"""

from __future__ import annotations

from dataclasses import dataclass

from etgcore.view import PendingDoubleView
from firmware.engine.inputs import Decision

#: seconds without a further DOUBLE press before a pending 1x-4x double is placed
DOUBLE_CONFIRM_S = 1.5


@dataclass
class PendingDouble:
    seat: int
    hand: int
    times: int
    since: float
    #: the double sizes the engine would take for this hand (the seat can cover them)
    sizes: tuple[int, ...] = (1, 2, 3, 4)

    def public(self) -> PendingDoubleView:
        return {"seat": self.seat, "hand": self.hand, "times": self.times}


class DoubleChooser:
    """Holds at most one pending double; each method returns the :class:`Decision` to
    feed when the double is placed, else None (the caller feeds it and refreshes). Times
    are the controller's clock, passed in: the machine reads no clock itself."""

    def __init__(self) -> None:
        self.pending: PendingDouble | None = None

    def start(self, seat: int, hand: int, sizes: tuple[int, ...], now: float) -> None:
        """DOUBLE pressed on a hand that may double: offer the smallest size, if any."""
        if sizes:
            self.pending = PendingDouble(seat, hand, sizes[0], now, sizes)

    def press(self, seat: int | None, button: str, now: float) -> Decision | None:
        """A button pressed while a double is pending (other seats are ignored)."""
        pd = self.pending
        if pd is None or seat != pd.seat:
            return None
        if button == "DOUBLE":
            bigger = [x for x in pd.sizes if x > pd.times]
            if bigger:
                pd.times = bigger[0]
                pd.since = now
            if not bigger or pd.times == pd.sizes[-1]:
                return self.place()
        elif button == "STAND":
            return self.place()  # STAND while a double is pending confirms it
        return None

    def due(self) -> float | None:
        """When :meth:`tick` places the pending double, or None."""
        return None if self.pending is None else self.pending.since + DOUBLE_CONFIRM_S

    def tick(self, now: float) -> Decision | None:
        due = self.due()
        return self.place() if due is not None and now >= due else None

    def place(self) -> Decision | None:
        pd, self.pending = self.pending, None
        return None if pd is None else Decision(pd.seat, pd.hand, "double", times=pd.times)

    def lamps(self) -> dict[int, set[str]] | None:
        """The lamps while a double is pending (None: the table's usual lamps)."""
        pd = self.pending
        if pd is None:
            return None
        raise_ok = any(x > pd.times for x in pd.sizes)
        return {pd.seat: {"DOUBLE", "STAND"} if raise_ok else {"STAND"}}

    def public(self) -> PendingDoubleView | None:
        return None if self.pending is None else self.pending.public()
