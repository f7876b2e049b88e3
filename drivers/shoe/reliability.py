"""Shoe ICD §3 reliability: sequence numbers, ACK/NAK, stop-and-wait, retransmission,
duplicates, and (for the controller) the link watchdog.

:class:`Link` is a pure state machine with the clock passed in: every method that can
make time-dependent decisions takes ``now`` (seconds, any monotonic origin). It never
reads a clock, never sleeps and never touches a port, so every rule of the ICD can be
tested exactly and instantly with a fake clock. The driver and the simulator wrap it in
thin I/O loops: feed it decoded frames, call :meth:`Link.poll` when
:meth:`Link.next_deadline` comes, and write what :meth:`Link.take_output` hands back.

Both ends of the cable use the same class; only the application on top differs (the
shoe sends heartbeats and ``HEL``, the controller watches for silence).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from drivers.shoe.framing import Frame, encode, frame_bytes

#: Frame types that are not numbered, answered or retransmitted (ICD §3).
UNRELIABLE = frozenset({"ACK", "NAK", "HBT"})


@dataclass(frozen=True)
class Timing:
    """Every protocol time of the ICD, injectable so tests can run the rules faster."""

    retransmit_s: float = 0.25  #: resend an unanswered reliable frame this often
    max_sends: int = 5  #: sends in all before a link fault is reported
    answer_s: float = 0.10  #: both sides answer within this (we answer at once)
    heartbeat_s: float = 1.0  #: the shoe's HBT period
    heartbeat_tol_s: float = 0.10  #: the ICD's tolerance on that period
    link_down_s: float = 3.0  #: the controller's silence limit
    fault_retry_s: float = 1.0  #: after a link fault, keep retrying this often (our choice)

    def scaled(self, factor: float) -> Timing:
        """All times multiplied by ``factor`` (``max_sends`` unchanged): fast tests."""
        return replace(
            self,
            retransmit_s=self.retransmit_s * factor,
            answer_s=self.answer_s * factor,
            heartbeat_s=self.heartbeat_s * factor,
            heartbeat_tol_s=self.heartbeat_tol_s * factor,
            link_down_s=self.link_down_s * factor,
            fault_retry_s=self.fault_retry_s * factor,
        )


#: The timings of the ICD as written.
ICD_TIMING = Timing()


# ---- what the link tells its owner -------------------------------------------------------


@dataclass(frozen=True)
class Accepted:
    """A new reliable frame from the peer: act on it, then call :meth:`Link.answer`."""

    frame: Frame


@dataclass(frozen=True)
class Duplicate:
    """A retransmission of the frame last accepted: the link answered again; do not act."""

    frame: Frame


@dataclass(frozen=True)
class Answered:
    """The peer answered our frame in flight (``ok`` for ACK, else NAK with ``reason``)."""

    frame: Frame
    ok: bool
    reason: str | None = None


@dataclass(frozen=True)
class StaleAnswer:
    """An ACK/NAK that does not match our frame in flight (late, or for a dropped frame)."""

    frame: Frame


@dataclass(frozen=True)
class Heartbeat:
    frame: Frame


@dataclass(frozen=True)
class SendFault:
    """``max_sends`` sends of ``frame`` went unanswered; it stays queued and is retried."""

    frame: Frame


@dataclass(frozen=True)
class PeerSilent:
    """Watchdog: no valid frame from the peer for ``link_down_s`` (or it stopped answering)."""

    reason: str


@dataclass(frozen=True)
class PeerAlive:
    """The first valid frame after silence (or ever)."""


Notice = (Accepted | Duplicate | Answered | StaleAnswer | Heartbeat | SendFault | PeerSilent
          | PeerAlive)


@dataclass(frozen=True)
class Outgoing:
    """Bytes for the wire and what they are (the simulator's fault injector needs to know)."""

    data: bytes
    frame: Frame
    kind: str  #: "reliable", "answer" or "heartbeat"
    retransmit: bool = False


@dataclass
class _Pending:
    frame: Frame
    sends: int = 0
    next_send: float = 0.0
    faulted: bool = False


class Link:
    """One side's view of the ICD §3 link. See the module docstring for the contract."""

    def __init__(self, timing: Timing = ICD_TIMING, *, watch_peer: bool = False,
                 encode: Callable[[Frame], bytes] = frame_bytes) -> None:
        #: how a frame goes on the wire: the reader model's encoder (ICD ASCII by default)
        self.encode = encode
        self.timing = timing
        self.watch_peer = watch_peer
        self._tx_seq = 0
        self._last_sent_seq = 0
        self._queue: deque[_Pending] = deque()
        self._last_accepted: tuple[int, str] | None = None
        self._last_answer: bytes | None = None
        self._last_answer_frame: Frame | None = None
        self._delayed: list[tuple[float, Outgoing]] = []
        self._out: list[Outgoing] = []
        self.peer_up = False
        self._deaf = False  # a send fault: only a real answer brings the peer back
        self._last_rx: float | None = None
        self.counters = {"sent": 0, "retransmits": 0, "send_faults": 0, "duplicates": 0,
                         "stale_answers": 0, "accepted": 0}

    # ---- sending ------------------------------------------------------------------------

    def send(self, type_: str, *fields: str, now: float) -> Frame:
        """Queue a reliable frame (numbered now, sent in order, one in flight at a time)."""
        if type_ in UNRELIABLE:
            raise ValueError(f"{type_} is not a reliable frame")
        frame = Frame(self._tx_seq, type_, tuple(fields))
        encode(frame.seq, frame.type, *frame.fields)  # refuse a malformed frame here
        self._tx_seq = (self._tx_seq + 1) & 0xFF
        self._queue.append(_Pending(frame))
        self._pump(now)
        return frame

    def heartbeat(self, *fields: str) -> Frame:
        """An ``HBT`` carrying the SEQ of the last reliable frame sent (ICD §3)."""
        frame = Frame(self._last_sent_seq, "HBT", tuple(fields))
        self._out.append(Outgoing(self.encode(frame), frame, "heartbeat"))
        return frame

    def restart(self) -> list[Frame]:
        """Sequence restart (ICD §4 ``HEL``): the next frame is 00; queued frames are dropped.

        Returns the dropped frames. The shoe calls it just before sending ``HEL``; the
        controller when it accepts one (its commands were for the shoe's previous life).
        """
        dropped = [p.frame for p in self._queue]
        self._queue.clear()
        self._tx_seq = 0
        self._last_sent_seq = 0
        return dropped

    def forget_peer(self) -> None:
        """Forget the peer's last SEQ (the shoe after its ``HEL``: the controller restarts)."""
        self._last_accepted = None
        self._last_answer = None

    @property
    def pending(self) -> int:
        """Reliable frames not yet answered (in flight plus queued)."""
        return len(self._queue)

    @property
    def in_flight(self) -> Frame | None:
        return self._queue[0].frame if self._queue and self._queue[0].sends else None

    # ---- receiving ----------------------------------------------------------------------

    def receive(self, frame: Frame, now: float) -> list[Notice]:
        """Account for one valid frame from the peer and say what it means."""
        notices: list[Notice] = []
        self._last_rx = now
        alive_before = self.peer_up
        if frame.type in ("ACK", "NAK"):
            head = self._queue[0] if self._queue else None
            if head is not None and head.sends and head.frame.seq == frame.seq:
                self._queue.popleft()
                self._deaf = False
                ok = frame.type == "ACK"
                reason = None if ok else (frame.fields[0] if frame.fields else "")
                notices.append(Answered(head.frame, ok, reason))
                self._pump(now)
            else:
                self.counters["stale_answers"] += 1
                notices.append(StaleAnswer(frame))
        elif frame.type == "HBT":
            notices.append(Heartbeat(frame))
        elif self._is_duplicate(frame):
            self.counters["duplicates"] += 1
            if self._last_answer is not None and self._last_answer_frame is not None:
                self._out.append(Outgoing(self._last_answer, self._last_answer_frame, "answer"))
            notices.append(Duplicate(frame))
        else:
            self.counters["accepted"] += 1
            self._deaf = False
            notices.append(Accepted(frame))
        if not self._deaf and not alive_before:
            self.peer_up = True
            notices.insert(0, PeerAlive())
        return notices

    def answer(self, frame: Frame, nak: str | None = None, *, at: float | None = None) -> None:
        """ACK (or NAK with ``nak`` as reason) an accepted frame; ``at`` delays the write.

        The frame counts as accepted from now on, so a retransmission arriving before a
        delayed answer is recognised as a duplicate and answered at once.
        """
        fields = (nak,) if nak is not None else ()
        reply = Frame(frame.seq, "NAK" if nak is not None else "ACK", fields)
        data = self.encode(reply)
        self._last_accepted = (frame.seq, frame.body)
        self._last_answer = data
        self._last_answer_frame = reply
        out = Outgoing(data, reply, "answer")
        if at is None:
            self._out.append(out)
        else:
            self._delayed.append((at, out))

    def _is_duplicate(self, frame: Frame) -> bool:
        last = self._last_accepted
        if last is None or last[0] != frame.seq:
            return False
        # A rebooted shoe numbers its HEL 00 again: only an identical HEL is a repeat.
        return frame.type != "HEL" or last[1] == frame.body

    # ---- time ---------------------------------------------------------------------------

    def poll(self, now: float) -> list[Notice]:
        """Run the timers: delayed answers, retransmissions, link faults, the watchdog."""
        notices: list[Notice] = []
        if self._delayed:
            due = [d for d in self._delayed if d[0] <= now]
            if due:
                self._delayed = [d for d in self._delayed if d[0] > now]
                self._out.extend(o for _, o in sorted(due, key=lambda d: d[0]))
        if self._queue:
            head = self._queue[0]
            if head.sends and now >= head.next_send:
                t = self.timing
                if head.sends >= t.max_sends and not head.faulted:
                    head.faulted = True
                    self.counters["send_faults"] += 1
                    notices.append(SendFault(head.frame))
                    if self.peer_up:
                        self.peer_up = False
                        self._deaf = True
                        notices.append(PeerSilent(
                            f"no answer to {head.frame.type} after {t.max_sends} sends"))
                    head.next_send = now + t.fault_retry_s
                else:
                    self._transmit(head, now, retransmit=True)
            elif not head.sends:
                self._transmit(head, now)
        if (self.watch_peer and self.peer_up and self._last_rx is not None
                and now - self._last_rx >= self.timing.link_down_s):
            self.peer_up = False
            notices.append(PeerSilent(
                f"no valid frame for {self.timing.link_down_s * 1000:.0f} ms"))
        return notices

    def next_deadline(self) -> float | None:
        """The earliest time :meth:`poll` has something to do (None: nothing scheduled)."""
        times: list[float] = [d[0] for d in self._delayed]
        if self._queue:
            head = self._queue[0]
            times.append(head.next_send if head.sends else 0.0)
        if self.watch_peer and self.peer_up and self._last_rx is not None:
            times.append(self._last_rx + self.timing.link_down_s)
        return min(times) if times else None

    def take_output(self) -> list[Outgoing]:
        out, self._out = self._out, []
        return out

    # ---- internals ----------------------------------------------------------------------

    def _pump(self, now: float) -> None:
        if self._queue and not self._queue[0].sends:
            self._transmit(self._queue[0], now)

    def _transmit(self, p: _Pending, now: float, retransmit: bool = False) -> None:
        p.sends += 1
        interval = self.timing.fault_retry_s if p.faulted else self.timing.retransmit_s
        p.next_send = now + interval
        self._last_sent_seq = p.frame.seq
        self.counters["sent"] += 1
        if retransmit:
            self.counters["retransmits"] += 1
        self._out.append(Outgoing(self.encode(p.frame), p.frame, "reliable", retransmit))
