"""The typed events the shoe driver hands to the table service (and the monitor prints).

One small immutable dataclass per kind (as the link's notices are) keeps the consumer's
code a plain ``match`` on the class, each kind carrying only its own fields, and makes
every event JSON-serialisable for the journal and the tilt log (ICD §6: "the tilt, its
cause and the raw frames are logged": ``raw`` is that frame).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

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

#: The shoe's fault codes (ICD §4) and ours for a frame the shoe should never send.
SHOE_FAULT_CODES = ("MISREAD", "DOUBLE", "JAM", "LID", "SENSOR")
PROTOCOL = "PROTOCOL"

#: the fields every event has (the frame behind it), printed after the kind's own
_FRAME = ("seq", "raw", "at")

#: True for an ICD card, rank then suit: ``"AS"``, ``"TD"`` (the core's alphabet).
is_card = cards.is_card


@dataclass(frozen=True, kw_only=True)
class ShoeReport:
    """One thing that happened at the shoe: the base of one dataclass per kind.

    ``kind`` names the kind for the journal, the monitor and the counters (a class
    constant, never a field to match on: consumers ``match`` on the class)."""

    kind: ClassVar[str] = ""
    seq: int | None = None  #: the SEQ of the frame that caused the event
    raw: str | None = None  #: that frame as received, for the log
    at: float = 0.0  #: time.monotonic() when the frame was decoded

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-ready data, without the fields that do not apply."""
        out: dict[str, Any] = {"event": self.kind}
        names = [f.name for f in fields(self)]
        for name in [n for n in names if n not in _FRAME] + [n for n in names if n in _FRAME]:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def describe(self) -> str:
        """One line for a technician."""
        return self.kind


@dataclass(frozen=True)
class ShoeHello(ShoeReport):
    """The shoe powered up, reset or reconnected (a tilt mid-round, ICD §6)."""

    kind: ClassVar[str] = HELLO
    proto: str
    model: str
    firmware: str
    serial: str
    dropped: int = 0  #: our commands dropped by the sequence restart

    def describe(self) -> str:
        return (f"hello: {self.model} firmware {self.firmware} serial {self.serial} "
                f"(protocol {self.proto})")


@dataclass(frozen=True)
class CardDealt(ShoeReport):
    """One card left the shoe."""

    kind: ClassVar[str] = CARD
    card: str  #: rank then suit, e.g. "TD"

    def describe(self) -> str:
        return f"card {self.card}"


@dataclass(frozen=True)
class CutCardReached(ShoeReport):
    kind: ClassVar[str] = CUT


@dataclass(frozen=True)
class ShoeEmpty(ShoeReport):
    kind: ClassVar[str] = EMPTY


@dataclass(frozen=True)
class ShoeFault(ShoeReport):
    """An ERR frame with a fault code the ICD names (:data:`SHOE_FAULT_CODES`)."""

    kind: ClassVar[str] = FAULT
    code: str
    detail: str | None = None

    def describe(self) -> str:
        return f"fault {self.code}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True)
class ProtocolFault(ShoeReport):
    """A frame the shoe should never send: one the driver refused (malformed, unknown
    type: ``code`` is :data:`PROTOCOL`) or an ERR whose code the ICD does not name
    (``code`` is that code). Either pauses the round (docs/shoe.md, "Which frames tilt")."""

    kind: ClassVar[str] = FAULT
    detail: str
    code: str = PROTOCOL

    def describe(self) -> str:
        return f"fault {self.code}: {self.detail}"


@dataclass(frozen=True)
class LinkUp(ShoeReport):
    """The first valid frame after silence, a lost port, or ever."""

    kind: ClassVar[str] = LINK_UP


@dataclass(frozen=True)
class LinkDown(ShoeReport):
    kind: ClassVar[str] = LINK_DOWN
    detail: str  #: why (silence, no answer, port lost)

    def describe(self) -> str:
        return f"{self.kind}: {self.detail}"


@dataclass(frozen=True)
class ShoeStatus(ShoeReport):
    """The answer to ``query()``."""

    kind: ClassVar[str] = STATUS
    state: str  #: READY LOCKED EMPTY FAULT
    count: int  #: cards dealt since the last NEW

    def describe(self) -> str:
        return f"status {self.state}, {self.count} cards since NEW"


@dataclass(frozen=True)
class CommandAcked(ShoeReport):
    """The shoe accepted our ``command``."""

    kind: ClassVar[str] = ACK
    command: str

    def describe(self) -> str:
        return f"ack {self.command}"


@dataclass(frozen=True)
class CommandRefused(ShoeReport):
    """The shoe refused our ``command``; ``code`` is its reason (NAK)."""

    kind: ClassVar[str] = NAK
    command: str
    code: str | None = None

    def describe(self) -> str:
        return f"nak {self.command}" + (f" ({self.code})" if self.code else "")


@dataclass(frozen=True)
class ShoeHeartbeat(ShoeReport):
    """Only when the driver is asked for them (the monitor)."""

    kind: ClassVar[str] = HEARTBEAT
    uptime_s: int | None = None
    state: str | None = None

    def describe(self) -> str:
        return f"heartbeat: up {self.uptime_s} s, {self.state}"


def shoe_error(code: str, detail: str | None, **frame: Any) -> ShoeFault | ProtocolFault:
    """The event an ERR frame stands for: a fault the ICD names, or a protocol fault
    for a code it does not (decided here, once, by the code's membership in the ICD)."""
    if code in SHOE_FAULT_CODES:
        return ShoeFault(code, detail, **frame)
    return ProtocolFault(f"unknown shoe error {code}", code, **frame)
