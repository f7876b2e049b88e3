"""The controller's side of the shoe ICD as a pure object: bytes and time in, events and
bytes out.

:class:`ControllerSession` is everything the driver knows about the protocol (decoding,
the reliable link, what each shoe frame means and how to answer it, the resync after
attaching to a shoe mid-stream) without a thread, a port or a clock, so the same logic is
tested instantly with a fake clock and run for real by :mod:`drivers.shoe.driver`.
"""

from __future__ import annotations

import logging

from drivers.shoe import reports as ev
from drivers.shoe.framing import Frame, frame_text
from drivers.shoe.models import ReaderModel, default_model
from drivers.shoe.reliability import (
    ICD_TIMING,
    Accepted,
    Answered,
    Duplicate,
    Heartbeat,
    Link,
    Notice,
    PeerAlive,
    PeerSilent,
    SendFault,
    StaleAnswer,
    Timing,
)
from drivers.shoe.reports import (
    CardDealt,
    CommandAcked,
    CommandRefused,
    CutCardReached,
    LinkDown,
    LinkUp,
    ProtocolFault,
    ShoeEmpty,
    ShoeHeartbeat,
    ShoeHello,
    ShoeReport,
    ShoeStatus,
)

log = logging.getLogger("etg.shoe")

#: Controller -> shoe frame types (ICD §5).
COMMANDS = ("RST", "QRY", "NEW", "LCK", "ULK", "LED")
LED_MODES = ("OFF", "GREEN", "AMBER", "RED", "BLINK")
STATES = ("READY", "LOCKED", "EMPTY", "FAULT")


class ControllerSession:
    """One controller's conversation with one shoe, from port open to port close.

    ``resync``: if the first valid frame after opening is not ``HEL`` (we attached to a
    running shoe whose sequence numbers we do not know), send ``RST`` so both sides
    restart at 00; repeat once per two heartbeat periods until a ``HEL`` arrives.
    """

    def __init__(self, timing: Timing = ICD_TIMING, *, resync: bool = True,
                 heartbeats: bool = False, model: ReaderModel | None = None) -> None:
        #: the reader model: its decoder and its encoder (none given: the default)
        self.model = model = model or default_model()
        self.timing = timing
        self.resync = resync
        self.heartbeats = heartbeats
        self.decoder = model.decoder()
        self.link = Link(timing, watch_peer=True, encode=model.encode)
        self.synced = False  # a HEL seen since the port opened
        self._resync_at: float | None = None
        self._events: list[ShoeReport] = []
        #: when the port opened and no valid frame has come since (a shoe that is not
        #: there, or a cable to nothing): silent that long is a link-down from the start
        self._silent_since: float | None = None

    # ---- input -----------------------------------------------------------------------

    def port_opened(self, now: float) -> None:
        """A fresh port: forget partial frames and sequence state; wait for the shoe."""
        self.decoder.reset()
        self.link = Link(self.timing, watch_peer=True, encode=self.model.encode)
        self.synced = False
        self._resync_at = None
        self._silent_since = now

    def port_lost(self, now: float, why: str) -> list[ShoeReport]:
        if self.link.peer_up:
            self.link.peer_up = False
            return [LinkDown(f"port lost: {why}", at=now)]
        return []

    def feed(self, data: bytes, now: float) -> list[ShoeReport]:
        """Bytes from the shoe -> events (answers are queued for :meth:`take_output`)."""
        for frame in self.decoder.feed(data):
            for notice in self.link.receive(frame, now):
                self._on_notice(notice, now)
            if not self.synced and self.resync and self._resync_at is None:
                self._resync_at = now  # first frame was not HEL: reset the shoe
        out, self._events = self._events, []
        return out

    def poll(self, now: float) -> list[ShoeReport]:
        for notice in self.link.poll(now):
            self._on_notice(notice, now)
        since = self._silent_since
        if since is not None and now - since >= self.timing.link_down_s:
            self._silent_since = None
            self._emit(LinkDown(
                f"no valid frame from the shoe in {self.timing.link_down_s * 1000:.0f} ms "
                "since the port opened", at=now))
        if not self.synced and self._resync_at is not None and now >= self._resync_at:
            in_flight = self.link.in_flight
            if in_flight is None or in_flight.type != "RST":
                log.info("shoe: attached mid-stream, sending RST to restart sequences")
                self.link.send("RST", now=now)
            self._resync_at = now + 2 * self.timing.heartbeat_s
        out, self._events = self._events, []
        return out

    def command(self, type_: str, *fields: str, now: float) -> Frame:
        """Queue a controller frame (sent in order, one in flight, retransmitted)."""
        if type_ not in COMMANDS:
            raise ValueError(f"{type_} is not a controller command (ICD §5: {COMMANDS})")
        return self.link.send(type_, *fields, now=now)

    def take_output(self) -> bytes:
        return b"".join(o.data for o in self.link.take_output())

    def next_deadline(self) -> float | None:
        t = self.link.next_deadline()
        if self._silent_since is not None:
            silent = self._silent_since + self.timing.link_down_s
            t = silent if t is None else min(t, silent)
        if not self.synced and self._resync_at is not None:
            t = self._resync_at if t is None else min(t, self._resync_at)
        return t

    # ---- meaning -----------------------------------------------------------------------

    def _emit(self, event: ShoeReport) -> None:
        self._events.append(event)

    def _on_notice(self, n: Notice, now: float) -> None:
        if isinstance(n, PeerAlive):
            self._silent_since = None
            self._emit(LinkUp(at=now))
        elif isinstance(n, PeerSilent):
            self._emit(LinkDown(n.reason, at=now))
        elif isinstance(n, Accepted):
            self._on_shoe_frame(n.frame, now)
        elif isinstance(n, Answered):
            self._emit(CommandAcked(n.frame.type, seq=n.frame.seq, at=now) if n.ok else
                       CommandRefused(n.frame.type, n.reason, seq=n.frame.seq, at=now))
            if not n.ok:
                log.warning("shoe refused %s: NAK %s", n.frame, n.reason)
        elif isinstance(n, Heartbeat):
            if self.heartbeats:
                f = n.frame
                up = int(f.fields[0]) if f.fields and f.fields[0].isdigit() else None
                self._emit(ShoeHeartbeat(up, f.fields[1] if len(f.fields) > 1 else None,
                                         seq=f.seq, raw=frame_text(f), at=now))
        elif isinstance(n, SendFault):
            log.warning("shoe: no answer to %s after %d sends", n.frame, self.timing.max_sends)
        elif isinstance(n, Duplicate | StaleAnswer):
            log.debug("shoe: %s", n)

    def _on_shoe_frame(self, f: Frame, now: float) -> None:
        raw = frame_text(f)
        t, a = f.type, f.fields
        problem: str | None = None
        if t == "HEL":
            if len(a) == 4 and a[0] == "1":
                dropped = self.link.restart()
                self.synced = True
                self._resync_at = None
                self.link.answer(f)
                self._emit(ShoeHello(a[0], a[1], a[2], a[3], len(dropped), seq=f.seq,
                                     raw=raw, at=now))
                return
            problem = "HEL needs protocol 1, model, firmware and serial"
        elif t == "CRD":
            if len(a) == 1 and ev.is_card(a[0]):
                self._answer_and_emit(f, CardDealt(a[0], seq=f.seq, raw=raw, at=now))
                return
            problem = "CRD needs one card, rank then suit (e.g. TD)"
        elif t in ("CUT", "EMP"):
            if not a:
                kind = CutCardReached if t == "CUT" else ShoeEmpty
                self._answer_and_emit(f, kind(seq=f.seq, raw=raw, at=now))
                return
            problem = f"{t} takes no field"
        elif t == "ERR":
            if a:
                detail = ",".join(a[1:]) or None
                self._answer_and_emit(f, ev.shoe_error(a[0], detail, seq=f.seq, raw=raw,
                                                       at=now))
                return
            problem = "ERR needs a code"
        elif t == "STA":
            if len(a) == 2 and a[0] in STATES and a[1].isdigit():
                self._answer_and_emit(f, ShoeStatus(a[0], int(a[1]), seq=f.seq, raw=raw,
                                                    at=now))
                return
            problem = "STA needs a state (READY LOCKED EMPTY FAULT) and a count"
        else:
            # A frame type we do not know: refuse it and tilt (a new firmware must be
            # qualified before it reaches the floor).
            self.link.answer(f, "UNKNOWN")
            self._emit(ProtocolFault(f"unknown frame type {t}", seq=f.seq, raw=raw, at=now))
            return
        self.link.answer(f, "BADARG")
        self._emit(ProtocolFault(problem, seq=f.seq, raw=raw, at=now))

    def _answer_and_emit(self, f: Frame, event: ShoeReport) -> None:
        self.link.answer(f)
        self._emit(event)
