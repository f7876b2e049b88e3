"""Shoe test kit: scaled timings, a fake shuffler, and a small controller written here,
independently of drivers.shoe (its own CRC, parser and sequencing), to hold the
simulator to the ICD over a real pseudo-terminal.

A module with a name of its own, not conftest.py: other areas have a conftest.py too, and
`from conftest import` gets whichever was loaded last when pytest is given several test
directories (`pytest tests/deploy tests/shoe` failed to collect)."""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from waiting import DEADLINE_S

from drivers.shoe.framing import Decoder, Frame, encode
from drivers.shoe.reliability import ICD_TIMING, Timing
from drivers.shoe.sim_machine import ShoeMachine, SimSettings

#: Most tests run the protocol 5x faster: retransmit 50 ms, HBT 200 ms, link-down 600 ms.
SCALE = 0.2
FAST: Timing = ICD_TIMING.scaled(SCALE)

RANKS = "A23456789TJQK"
SUITS = "SHDC"


def plain_shoe(decks: int, spanish: bool = False, seed: bytes | None = None) -> list[str]:
    """A deterministic "shuffle" for tests that do not care about order."""
    deck = [r + s for s in SUITS for r in RANKS if not (spanish and r == "T")]
    return deck * decks


def crc_ccitt_false(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


FRAME = re.compile(rb"\$([0-9A-F]{2}),([A-Z]{3})((?:,[^$*,\r\n]+)*)\*([0-9A-F]{4})\r\n")


@dataclass
class Rx:
    seq: int
    type: str
    fields: list[str]
    t: float


class IndependentController:
    """A minimal ICD controller over a pty slave: send frames, collect frames, ACK."""

    def __init__(self, path: str, auto_ack: bool = True) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        self.auto_ack = auto_ack
        self.buf = b""
        self.log: list[Rx] = []  # every frame received
        self.inbox: list[Rx] = []  # received but not yet taken by expect/collect/command
        self.seq = 0
        self.writes: list[tuple[bytes, float]] = []

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.fd)

    @staticmethod
    def frame(seq: int, type_: str, *fields: str) -> bytes:
        body = ",".join([f"{seq:02X}", type_, *fields]).encode()
        return b"$" + body + b"*" + f"{crc_ccitt_false(body):04X}".encode() + b"\r\n"

    def write(self, data: bytes) -> float:
        os.write(self.fd, data)
        t = time.monotonic()
        self.writes.append((data, t))
        return t

    def send(self, type_: str, *fields: str, seq: int | None = None) -> int:
        """A reliable frame with our own counter (or the SEQ given: a retransmission)."""
        if seq is None:
            seq = self.seq
            self.seq = (self.seq + 1) & 0xFF
        self.write(self.frame(seq, type_, *fields))
        return seq

    def pump(self, timeout: float) -> list[Rx]:
        """Read for up to ``timeout`` s; parse, auto-ACK reliable frames; the new frames."""
        got: list[Rx] = []
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                break
            try:
                chunk = os.read(self.fd, 4096)
            except BlockingIOError:
                continue
            now = time.monotonic()
            self.buf += chunk
            while True:
                m = FRAME.search(self.buf)
                if m is None:
                    break
                self.buf = self.buf[m.end():]
                body = m.group(0)[1:-7]
                if crc_ccitt_false(body) != int(m.group(4), 16):
                    continue
                fields = m.group(3).decode()
                rx = Rx(int(m.group(1), 16), m.group(2).decode(),
                        fields[1:].split(",") if fields else [], now)
                if rx.type == "HEL":
                    self.seq = 0  # ICD §3: our numbering restarts on the shoe's HEL
                if self.auto_ack and rx.type not in ("ACK", "NAK", "HBT"):
                    self.write(self.frame(rx.seq, "ACK"))
                got.append(rx)
                self.log.append(rx)
                self.inbox.append(rx)
            if got and timeout == 0:
                break
        return got

    def expect(self, type_: str, timeout: float = DEADLINE_S,
               where: Callable[[Rx], bool] = lambda rx: True) -> Rx:
        end = time.monotonic() + timeout
        while True:
            for i, rx in enumerate(self.inbox):
                if rx.type == type_ and where(rx):
                    del self.inbox[:i + 1]
                    return rx
            if time.monotonic() >= end:
                break
            self.pump(min(0.05, max(0.0, end - time.monotonic())))
        recent = [r.type for r in self.log[-12:]]
        raise AssertionError(f"no {type_} within {timeout} s; got {recent}")

    def collect(self, seconds: float) -> list[Rx]:
        """Everything not yet taken, plus what arrives within ``seconds``."""
        self.pump(seconds)
        got, self.inbox = self.inbox, []
        return got

    def command(self, type_: str, *fields: str, timeout: float = DEADLINE_S) -> Rx:
        """Send a reliable frame and wait for its ACK/NAK (a dropped one is resent)."""
        seq = self.send(type_, *fields)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.1)
            for i, rx in enumerate(self.inbox):
                if rx.type in ("ACK", "NAK") and rx.seq == seq:
                    del self.inbox[i]
                    return rx
            self.send(type_, *fields, seq=seq)
        raise AssertionError(f"{type_} was never answered")


socat = pytest.mark.skipif(shutil.which("socat") is None, reason="socat is not installed")


class ClockedShoe:
    """The simulator's machine on a clock the test turns: every time the ICD prescribes
    (retransmissions, heartbeats, the pace of the cards) checked exactly, whatever the
    load of the machine. The controller's side ACKs every reliable frame at once unless
    told not to; :attr:`sent` is every frame the shoe sent, with the time it did."""

    STEP_S = 0.01

    def __init__(self, ack: bool = True, **settings: object) -> None:
        settings.setdefault("timing", ICD_TIMING)
        self.machine = ShoeMachine(SimSettings(**settings), 0.0,  # type: ignore[arg-type]
                                   plain_shoe)
        self.ack = ack
        self.now = 0.0
        self.decoder = Decoder()
        self.sent: list[tuple[float, Frame]] = []
        self.machine.connect(0.0)
        self._take()

    def _take(self) -> None:
        todo = self.decoder.feed(self.machine.take_output())
        while todo:
            frame = todo.pop(0)
            self.sent.append((self.now, frame))
            if self.ack and frame.type not in ("ACK", "NAK", "HBT"):
                self.machine.feed(encode(frame.seq, "ACK"), self.now)
                todo += self.decoder.feed(self.machine.take_output())

    def command(self, seq: int, type_: str, *fields: str) -> None:
        """A controller frame arrives now."""
        self.machine.feed(encode(seq, type_, *fields), self.now)
        self._take()

    def run_until(self, t: float) -> None:
        """Let the clock run to ``t`` in steps of :attr:`STEP_S`."""
        while self.now < t - 1e-9:
            self.now = round(self.now + self.STEP_S, 6)
            self.machine.poll(self.now)
            self._take()

    def times(self, type_: str) -> list[float]:
        return [t for t, f in self.sent if f.type == type_]
