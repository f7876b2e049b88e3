"""The vendor's shoe, as a pure state machine: bytes and time in, bytes out.

This is the shoe side of the ICD (§3-§5) plus the faults a bench needs to provoke. Like
the controller session it has no thread, port or clock: :mod:`drivers.shoe.simulator`
runs it on a port, and the tests drive it with a fake clock where that is clearer.

Behaviour where the ICD leaves room (documented in docs/shoe.md):
- A card is drawn only when no reliable frame of ours awaits an answer (the dealer waits
  for the reader's light), so after the shoe ACKs ``LCK`` no new ``CRD`` is originated.
- ``NAK,STATE``: ``NEW`` while the gate is unlocked, ``ULK`` while in ``FAULT``.
- ``JAM``, ``LID`` and ``SENSOR`` leave the shoe in ``FAULT`` until ``RST`` (or a reboot,
  or the bench clears it); ``MISREAD`` consumes one card and ``DOUBLE`` two.
- The gate locks when the controller goes away, so every ``HEL`` (power-up, reset,
  reconnect) finds it locked; a sticky fault is announced again after the ``HEL``.
- A scripted card list is one queue: ``NEW`` loads what remains of it as the next shoe.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from drivers.shoe.framing import Frame, encode
from drivers.shoe.models import ReaderModel, default_model
from drivers.shoe.reliability import Accepted, Answered, Link, SendFault
from drivers.shoe.reports import is_card
from drivers.shoe.session import LED_MODES
from drivers.shoe.sim_settings import (
    FAULT_KINDS,
    LINK_FAULTS,
    POWER_FAULTS,
    SHOE_FAULTS,
    STICKY,
    ScheduledFault,
    Shuffler,
    SimSettings,
    rng_shuffler,
)

# Re-exported: callers import the shoe's vocabulary from here as well.
__all__ = ["FAULT_KINDS", "LINK_FAULTS", "POWER_FAULTS", "SHOE_FAULTS", "STICKY",
           "ScheduledFault", "ShoeMachine", "Shuffler", "SimSettings", "rng_shuffler"]


class ShoeMachine:
    """One shoe. ``connect``/``disconnect`` mark the controller attaching and leaving."""

    def __init__(self, settings: SimSettings, now: float, shuffler: Shuffler = rng_shuffler,
                 model: ReaderModel | None = None):
        for card in settings.cards or ():
            if not is_card(card):
                raise ValueError(f"{card!r} is not a card (rank A2-9TJQK then suit SHDC)")
        self.s = settings
        self.timing = settings.timing
        self._shuffler = shuffler
        self._script: list[str] | None = list(settings.cards) if settings.cards else None
        self._schedule = sorted(settings.faults, key=lambda f: f.after_cards)
        self._rand = random.Random(settings.chaos_seed)
        self.model = model = model or default_model()  #: every frame it writes, faults too
        self.link = Link(self.timing, encode=model.encode)
        self.decoder = model.decoder()
        self.connected = False
        self.powered_at = now
        self.gate_locked = True
        self.fault_code: str | None = None
        self.led = "OFF"
        self.link_fault = False
        self.content: list[str] = []
        self.pos = 0
        self.count = 0
        self.cut_at: int | None = None
        self.cut_done = False
        self.emp_sent = False
        self.shoes_loaded = 0
        self.dealt_total = 0
        self.next_deal = now
        self.next_hbt = now + self.timing.heartbeat_s
        self.silent_until: float | None = None
        self.reboot_at: float | None = None
        self._pending: dict[str, int] = {}
        self._late_ack_s: list[float] = []
        self._raw: list[bytes] = []
        self.received: list[Frame] = []  #: controller frames acted on (for the bench)
        self.counters = {"cards": 0, "naks_sent": 0, "naks_received": 0, "hellos": 0}
        self._load(settings.decks)

    # ---- the shoe's contents -----------------------------------------------------------

    def _load(self, decks: int) -> None:
        if self._script is not None:  # scripted: the next shoe is what remains
            self.content = self._script if not self.shoes_loaded else self.content[self.pos:]
        else:
            seed = self.s.seed
            if seed is not None:  # one fixed seed, a different shoe each load
                seed = seed + self.shoes_loaded.to_bytes(4, "big")
            self.content = self._shuffler(decks, self.s.spanish, seed)
        self.shoes_loaded += 1
        self.pos = 0
        self.count = 0
        self.cut_done = False
        self.emp_sent = False
        if self.s.cut_after is not None:
            self.cut_at = min(self.s.cut_after, len(self.content))
        else:
            self.cut_at = round(len(self.content) * self.s.penetration)

    def load_cards(self, cards: Sequence[str], now: float, *, append: bool = False) -> None:
        """Bench: script the cards still to come (replacing, or after, what remains)."""
        for card in cards:
            if not is_card(card):
                raise ValueError(f"{card!r} is not a card (rank A2-9TJQK then suit SHDC)")
        remaining = self.content[self.pos:] if append else []
        self.content = self.content[:self.pos] + remaining + list(cards)
        self.emp_sent = False

    @property
    def remaining(self) -> int:
        return len(self.content) - self.pos

    def state(self) -> str:
        if self.fault_code is not None:
            return "FAULT"
        if self.remaining <= 0:
            return "EMPTY"
        return "LOCKED" if self.gate_locked else "READY"

    # ---- connection and power ----------------------------------------------------------

    def connect(self, now: float) -> None:
        """The controller attached (power-up or reconnect): greet it with HEL."""
        self.connected = True
        if self.reboot_at is None:
            self._hello(now)

    def disconnect(self, now: float) -> None:
        """The controller left: lock the gate (no card may leave with nobody watching)."""
        self.connected = False
        self.gate_locked = True

    def _hello(self, now: float) -> None:
        self.link.restart()
        self.link.forget_peer()
        self.link.send("HEL", "1", self.s.model, self.s.firmware, self.s.serial, now=now)
        self.counters["hellos"] += 1
        self.next_hbt = now + self.timing.heartbeat_s
        if self.fault_code is not None:  # a jam or an open lid outlives a reconnect
            self.link.send("ERR", self.fault_code, now=now)

    def _power_up(self, now: float) -> None:
        self.powered_at = now
        self.gate_locked = True
        self.fault_code = None
        self.led = "OFF"
        self.link_fault = False
        self.decoder.reset()
        if self.connected:
            self._hello(now)

    def _dark(self, now: float) -> bool:
        if self.reboot_at is not None:
            if now < self.reboot_at:
                return True
            self.reboot_at = None
            self.silent_until = None
            self._power_up(now)
        if self.silent_until is not None:
            if now < self.silent_until:
                return True
            self.silent_until = None
        return False

    # ---- input -------------------------------------------------------------------------

    def feed(self, data: bytes, now: float) -> None:
        if not self.connected or self._dark(now):
            return
        for frame in self.decoder.feed(data):
            for n in self.link.receive(frame, now):
                if isinstance(n, Accepted):
                    self._on_command(n.frame, now)
                elif isinstance(n, Answered):
                    self.link_fault = False  # the controller is back: the light goes out
                    if not n.ok:
                        self.counters["naks_received"] += 1

    def _answer(self, f: Frame, nak: str | None = None, now: float = 0.0) -> None:
        at = now + self._late_ack_s.pop(0) if self._late_ack_s else None
        if nak is not None:
            self.counters["naks_sent"] += 1
        self.link.answer(f, nak, at=at)

    def _on_command(self, f: Frame, now: float) -> None:
        t, a = f.type, f.fields
        self.received.append(f)
        if t in ("RST", "QRY", "LCK", "ULK") and a:
            return self._answer(f, "BADARG", now)
        if t == "RST":
            self._answer(f, None, now)
            return self._power_up(now)
        if t == "QRY":
            self._answer(f, None, now)
            self.link.send("STA", self.state(), str(self.count), now=now)
        elif t == "LCK":
            self.gate_locked = True
            self._answer(f, None, now)
        elif t == "ULK":
            if self.fault_code is not None:
                return self._answer(f, "STATE", now)
            if self.gate_locked:
                self.next_deal = now + self.s.pace_s
            self.gate_locked = False
            self._answer(f, None, now)
        elif t == "NEW":
            if len(a) != 1 or not a[0].isdigit() or not 1 <= int(a[0]) <= 8:
                return self._answer(f, "BADARG", now)
            if not self.gate_locked:
                return self._answer(f, "STATE", now)
            self._load(int(a[0]))
            self._answer(f, None, now)
        elif t == "LED":
            if len(a) != 1 or a[0] not in LED_MODES:
                return self._answer(f, "BADARG", now)
            self.led = a[0]
            self._answer(f, None, now)
        else:
            self._answer(f, "UNKNOWN", now)
        return None

    # ---- time --------------------------------------------------------------------------

    def poll(self, now: float) -> None:
        if not self.connected or self._dark(now):
            return
        for n in self.link.poll(now):
            if isinstance(n, SendFault):
                self.link_fault = True  # ICD §3: the shoe lights red, keeps the frame
        if now >= self.next_hbt:
            self.link.heartbeat(str(int(now - self.powered_at)), self.state())
            self.next_hbt += self.timing.heartbeat_s
            if self.next_hbt <= now:  # we were starved: do not burst to catch up
                self.next_hbt = now + self.timing.heartbeat_s
        while self._schedule and self.dealt_total >= self._schedule[0].after_cards:
            sf = self._schedule.pop(0)
            self.inject(sf.kind, sf.arg, now)
            if self._dark(now):
                return
        self._deal(now)

    def _deal(self, now: float) -> None:
        if (self.gate_locked or self.fault_code is not None or self.emp_sent
                or self.link.pending or now < self.next_deal):
            return
        self.next_deal = now + self.s.pace_s
        if self.cut_at is not None and not self.cut_done and self.count >= self.cut_at:
            self.cut_done = True
            self.link.send("CUT", now=now)
            return
        if self.remaining > 0:
            card = self.content[self.pos]
            self.pos += 1
            self.count += 1
            self.dealt_total += 1
            self.counters["cards"] += 1
            self.link.send("CRD", card, now=now)
        if self.remaining <= 0:
            self.emp_sent = True
            self.link.send("EMP", now=now)

    def next_deadline(self) -> float | None:
        if not self.connected:
            return None
        if self.reboot_at is not None:
            return self.reboot_at
        if self.silent_until is not None:
            return self.silent_until
        times = [self.next_hbt]
        t = self.link.next_deadline()
        if t is not None:
            times.append(t)
        times.extend(self._deal_deadlines())
        return min(times)

    def _deal_deadlines(self) -> list[float]:
        """When dealing (or a scheduled fault) next needs the machine; a variant of the
        shoe (the bench's) overrides only this."""
        times: list[float] = []
        if not (self.gate_locked or self.fault_code or self.emp_sent or self.link.pending):
            times.append(self.next_deal)
        if self._schedule and self.dealt_total >= self._schedule[0].after_cards:
            times.append(0.0)
        return times

    def take_output(self) -> bytes:
        """The bytes to write now, after the injected link faults have had their way."""
        raw, self._raw = self._raw, []
        parts: list[bytes] = raw
        for o in self.link.take_output():
            data = o.data
            if o.kind == "reliable" and not o.retransmit:
                fault = self._take_link_fault()
                if fault == "bad-crc":
                    data = self.model.corrupt(o.frame)
                elif fault == "drop":
                    data = b""
                elif fault == "duplicate":
                    data = data * 2
                elif fault == "garbage":
                    data = self._garbage(16) + data
            parts.append(data)
        return b"".join(parts)

    def _take_link_fault(self) -> str | None:
        for kind in ("bad-crc", "drop", "duplicate"):
            if self._pending.get(kind):
                self._pending[kind] -= 1
                return kind
        if self.s.chaos and self._rand.random() < self.s.chaos:
            return self._rand.choice(("bad-crc", "drop", "duplicate", "garbage"))
        return None

    def _garbage(self, n: int) -> bytes:
        junk = bytes(self._rand.randrange(256) for _ in range(n))
        start = self.model.encode(Frame(0, "HBT", ("0", "READY")))[:2]  # ICD: b"$0"
        return junk + start + junk[: n // 2]  # a truncated frame start too

    # ---- bench powers ------------------------------------------------------------------

    def inject(self, kind: str, arg: float | None, now: float) -> None:
        """Inject one fault now (see :data:`FAULT_KINDS`); ``arg`` as docs/shoe.md says."""
        kind = kind.lower()
        t = self.timing
        if kind in ("bad-crc", "drop", "duplicate"):
            self._pending[kind] = self._pending.get(kind, 0) + max(1, int(arg or 1))
        elif kind == "late-ack":
            delay = arg / 1000 if arg else t.retransmit_s * 1.6
            self._late_ack_s.append(delay)
        elif kind == "garbage":
            self._raw.append(self._garbage(int(arg or 24)))
        elif kind == "misread":
            self._consume(1)
            self.link.send("ERR", "MISREAD", now=now)
        elif kind == "double":
            self._consume(2)
            self.link.send("ERR", "DOUBLE", now=now)
        elif kind in ("jam", "lid", "sensor"):
            self.fault_code = kind.upper()
            self.link.send("ERR", self.fault_code, now=now)
        elif kind == "silence":
            self.silent_until = now + (arg if arg is not None else t.link_down_s * 1.5)
        elif kind == "reboot":
            self.reboot_at = now + (arg if arg is not None else self.s.boot_s)
        else:
            raise ValueError(f"unknown fault {kind!r} (one of: {', '.join(FAULT_KINDS)})")

    def _consume(self, n: int) -> None:
        taken = min(n, max(self.remaining, 0))
        self.pos += taken
        self.count += taken
        self.dealt_total += taken

    def clear_fault(self) -> None:
        self.fault_code = None

    def send_body(self, body: str, now: float) -> None:
        """Send any shoe->controller frame body now: ``"ERR,MISREAD"``, ``"CUT"``,
        ``"HEL,1,X,1,SN1"`` (restarts our numbering, as a real HEL does), or with an
        explicit SEQ for unnumbered frames: ``"05,ACK"``, ``"03,HBT,12,READY"``.
        """
        parts = body.strip().split(",")
        if len(parts[0]) == 2 and len(parts) > 1:
            seq = int(parts[0], 16)
            encode(seq, parts[1], *parts[2:])  # what the ICD allows, in any model
            self._raw.append(self.model.encode(Frame(seq, parts[1], tuple(parts[2:]))))
            return
        type_, fields = parts[0], parts[1:]
        encode(0, type_, *fields)  # validate before touching any state
        if type_ == "HEL":
            self.link.restart()
            self.link.forget_peer()
        if type_ in ("ACK", "NAK", "HBT"):
            raise ValueError(f"{type_} is not numbered by the shoe: give its SEQ, e.g. 05,{type_}")
        self.link.send(type_, *fields, now=now)

    def send_raw(self, data: bytes) -> None:
        self._raw.append(data)

    def status(self, now: float) -> dict[str, Any]:
        return {
            "state": self.state(), "gate": "locked" if self.gate_locked else "unlocked",
            "count": self.count, "remaining": self.remaining, "cut_at": self.cut_at,
            "cut_done": self.cut_done, "fault": self.fault_code,
            "led": "RED" if self.link_fault else self.led,
            "link_fault": self.link_fault, "connected": self.connected,
            "dark": self.reboot_at is not None or self.silent_until is not None,
            "pace_s": self.s.pace_s, "uptime_s": round(now - self.powered_at, 3),
            "pending_frames": self.link.pending, "dealt_total": self.dealt_total,
            "counters": dict(self.counters), "link": dict(self.link.counters),
            "decoder": self.decoder.stats.as_dict(),
        }
