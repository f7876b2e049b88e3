"""What the table tells the shoe, derived from what the engine expects: one collaborator.

The gate is unlocked only while a card is due (and the table has not failed), the LED
shows the table's state (GREEN: deal, AMBER: wait, RED: tilt or failure), and while a
fault is active, or a status asked for after the shoe's HEL has not come, the shoe is
asked for its status every :data:`QUERY_EVERY_S`. RequestDesk
are sent only when their value changes, so a refresh after every happening costs nothing
on the serial line. The controller holds one :class:`ShoeControl` and passes the clock
in; the object reads no clock of its own.
"""

from __future__ import annotations

from firmware.table.ports import ShoePort

#: seconds between shoe status queries while a fault is active
QUERY_EVERY_S = 1.0
#: while a card is due and none comes, the gate command is sent again this often: a
#: command lost to a shoe restart (the driver drops unanswered commands at HEL) must not
#: leave the table waiting on a locked gate; ULK is idempotent (shoe ICD §5)
GATE_REASSERT_S = 2.0


class ShoeControl:
    """The gate, the LED and the fault queries of one shoe (or of none: every method is
    then a no-op, so a table without a shoe needs no special case)."""

    def __init__(self, shoe: ShoePort | None = None) -> None:
        self.shoe = shoe
        #: "open", "locked", or None when the shoe's gate is unknown (a restart, a NAK)
        self.gate: str | None = None
        self._gate_at = 0.0  # when the gate was last commanded or a card last came
        self._led: str | None = None
        self._last_query = 0.0

    def sync(self, *, card_due: bool, tilted: bool, failed: bool, now: float) -> None:
        """Send the gate and LED commands the table's state asks for (when they change)."""
        if self.shoe is None:
            return
        gate = "open" if card_due and not failed else "locked"
        if gate != self.gate:
            (self.shoe.unlock if gate == "open" else self.shoe.lock)()
            self.gate = gate
            self._gate_at = now
        led = "RED" if (tilted or failed) else ("GREEN" if gate == "open" else "AMBER")
        if led != self._led:
            self.shoe.led(led)
            self._led = led

    def resync(self) -> None:
        """After the shoe (re)started its gate is locked: the next sync sends it all again."""
        self.gate = None
        self._led = None

    def gate_refused(self) -> None:
        """The shoe answered NAK to ULK: its gate is shut whatever we commanded."""
        self.gate = None

    def card_came(self, now: float) -> None:
        """A card left the shoe: the gate works, no need to reassert it for a while."""
        self._gate_at = now

    def query(self, now: float | None = None) -> None:
        """Ask the shoe for its status now; with ``now``, the next of :meth:`tick`'s
        periodic queries comes :data:`QUERY_EVERY_S` after this one."""
        if self.shoe is not None:
            self.shoe.query()
            if now is not None:
                self._last_query = now

    def new_shoe(self, decks: int) -> None:
        if self.shoe is not None:
            self.shoe.new(decks)

    def halt(self) -> None:
        """The table stopped (journal failure): gate shut, LED red, whatever else holds."""
        if self.shoe is not None:
            self.shoe.lock()
            self.shoe.led("RED")

    def due(self, *, want_status: bool) -> float | None:
        """When :meth:`tick` next has something to send, or None."""
        if self.shoe is None:
            return None
        due = []
        if want_status:
            due.append(self._last_query + QUERY_EVERY_S)
        if self.gate == "open":
            due.append(self._gate_at + GATE_REASSERT_S)
        return min(due, default=None)

    def tick(self, now: float, *, want_status: bool) -> None:
        """Query the shoe while the table ``want_status`` (a fault is active, or the
        status after a HEL has not come: that check must not wait on an answer lost on
        the line, nor be made much later against a status sent for another reason), and
        reassert an open gate no card came through."""
        if self.shoe is None:
            return
        if want_status and now - self._last_query >= QUERY_EVERY_S:
            self._last_query = now
            self.shoe.query()
        if self.gate == "open" and now - self._gate_at >= GATE_REASSERT_S:
            self._gate_at = now
            self.shoe.unlock()
