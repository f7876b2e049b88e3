"""The typed events the shoe driver hands to the table service (and the monitor prints).

One small immutable record for every kind keeps the consumer's code a plain ``match`` on
``event.kind`` and makes every event JSON-serialisable for the journal and the tilt log
(ICD §6: "the tilt, its cause and the raw frames are logged": ``raw`` is that frame).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from etgcore import cards

HELLO = "hello"  #: the shoe powered up, reset or reconnected (a tilt mid-round, ICD §6)
CARD = "card"  #: one card left the shoe: ``card`` is e.g. "TD"
CUT = "cut"  #: the cut card was reached
EMPTY = "empty"  #: the shoe is empty
FAULT = "fault"  #: ``code``: MISREAD DOUBLE JAM LID SENSOR (shoe ERR) or PROTOCOL (ours)
LINK_UP = "link-up"  #: the first valid frame after silence, a lost port, or ever
LINK_DOWN = "link-down"  #: ``detail`` says why (silence, no answer, port lost)
STATUS = "status"  #: the answer to ``query()``: ``state`` and ``count``
ACK = "ack"  #: the shoe accepted our ``command``
NAK = "nak"  #: the shoe refused our ``command``; ``code`` is its reason
HEARTBEAT = "heartbeat"  #: only when the driver is asked for them (the monitor)

KINDS = (HELLO, CARD, CUT, EMPTY, FAULT, LINK_UP, LINK_DOWN, STATUS, ACK, NAK, HEARTBEAT)

#: The shoe's fault codes (ICD §4) and ours for a frame the shoe should never send.
SHOE_FAULT_CODES = ("MISREAD", "DOUBLE", "JAM", "LID", "SENSOR")
PROTOCOL = "PROTOCOL"

#: True for an ICD card, rank then suit: ``"AS"``, ``"TD"`` (the core's alphabet).
is_card = cards.is_card


@dataclass(frozen=True)
class ShoeEvent:
    """One thing that happened at the shoe. Fields not relevant to ``kind`` are None."""

    kind: str
    card: str | None = None
    code: str | None = None  #: fault code, or the NAK reason
    detail: str | None = None  #: fault detail, link-down reason, ...
    state: str | None = None  #: status/heartbeat: READY LOCKED EMPTY FAULT
    count: int | None = None  #: status: cards dealt since the last NEW
    command: str | None = None  #: ack/nak: the frame type we sent
    model: str | None = None  #: hello
    firmware: str | None = None  #: hello
    serial: str | None = None  #: hello
    proto: str | None = None  #: hello
    dropped: int | None = None  #: hello: our commands dropped by the sequence restart
    uptime_s: int | None = None  #: heartbeat
    seq: int | None = None  #: the SEQ of the frame that caused the event
    raw: str | None = None  #: that frame as received, for the log
    at: float = 0.0  #: time.monotonic() when the frame was decoded

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data, without the fields that do not apply."""
        out: dict[str, Any] = {"event": self.kind}
        for f in fields(self):
            if f.name == "kind":
                continue
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = value
        return out

    def describe(self) -> str:
        """One line for a technician."""
        k = self.kind
        if k == HELLO:
            return (f"hello: {self.model} firmware {self.firmware} serial {self.serial} "
                    f"(protocol {self.proto})")
        if k == CARD:
            return f"card {self.card}"
        if k == FAULT:
            return f"fault {self.code}" + (f": {self.detail}" if self.detail else "")
        if k == STATUS:
            return f"status {self.state}, {self.count} cards since NEW"
        if k in (ACK, NAK):
            return f"{k} {self.command}" + (f" ({self.code})" if self.code else "")
        if k == HEARTBEAT:
            return f"heartbeat: up {self.uptime_s} s, {self.state}"
        if k in (LINK_UP, LINK_DOWN):
            return k + (f": {self.detail}" if self.detail else "")
        return k
