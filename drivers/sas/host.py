"""A SAS host (the slot system's side of the line): the link's simulated twin for tests,
the bench and ``etg sas host``.

It sends polls as a host does (on a real UART the first byte with the wakeup bit, by
switching between mark and space parity; on a pseudo-terminal there is no parity, so the
bytes alone) and reads each answer by its protocol length, checking the CRC. Every read
has a deadline; nothing here waits forever on a table that does not answer.
"""

from __future__ import annotations

import os
import select
import termios
import time
import tty
from dataclasses import dataclass

from drivers.sas.crc import crc16
from drivers.sas.framing import long_poll
from drivers.sas.ports import SasPortError


class NoAnswer(SasPortError):
    """The machine did not answer in time (or answered with a bad CRC)."""


@dataclass
class HostPort:
    """The host's end: a file descriptor (a pty's other end or a UART)."""

    fd: int
    uart: bool = False

    @classmethod
    def open(cls, path: str) -> HostPort:
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError as exc:
            raise SasPortError(f"cannot open {path}: {exc.strerror}") from None
        try:
            tty.setraw(fd)
        except termios.error:
            os.close(fd)
            raise SasPortError(f"{path} is not a serial port or a pseudo-terminal") from None
        uart = not os.path.basename(os.path.realpath(path)).isdigit()  # /dev/pts/N: a pty
        return cls(fd, uart)

    def send(self, data: bytes) -> None:
        """The first byte with the wakeup bit (mark parity), the rest without (space)."""
        if self.uart:
            self._parity(mark=True)
            os.write(self.fd, data[:1])
            termios.tcdrain(self.fd)
            self._parity(mark=False)
            data = data[1:]
        if data:
            os.write(self.fd, data)

    def _parity(self, *, mark: bool) -> None:
        attrs = termios.tcgetattr(self.fd)
        cmspar = getattr(termios, "CMSPAR", 0o10000000000)
        attrs[2] |= termios.PARENB | cmspar
        attrs[2] = attrs[2] | termios.PARODD if mark else attrs[2] & ~termios.PARODD
        termios.tcsetattr(self.fd, termios.TCSADRAIN, attrs)

    def read(self, n: int, deadline: float) -> bytes:
        out = bytearray()
        while len(out) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _w, _x = select.select([self.fd], [], [], left)
            if ready:
                try:
                    out += os.read(self.fd, n - len(out))
                except BlockingIOError:
                    continue
        return bytes(out)

    def drain(self) -> bytes:
        """Whatever is waiting (a late answer), so the next poll starts clean."""
        out = bytearray()
        while select.select([self.fd], [], [], 0)[0]:
            try:
                chunk = os.read(self.fd, 4096)
            except (BlockingIOError, OSError):
                break
            if not chunk:
                break
            out += chunk
        return bytes(out)

    def close(self) -> None:
        os.close(self.fd)


class Host:
    """Polls a machine; ``timeout`` is how long an answer may take (the protocol's
    deadline is 20 ms; tests on a busy machine allow more)."""

    def __init__(self, port: HostPort, timeout: float = 0.5) -> None:
        self.port = port
        self.timeout = timeout

    def general_poll(self, address: int) -> int | None:
        """The exception byte the machine answers with, or None (no answer)."""
        self.port.drain()
        self.port.send(bytes((0x80 | address,)))
        got = self.port.read(1, time.monotonic() + self.timeout)
        return got[0] if got else None

    def long(self, address: int, command: int, data: bytes = b"", *, crc: bool = True,
             variable: bool = False, answer: int | None = None) -> bytes:
        """Send a long poll; return the answer's data (after address and command, and
        the length byte when ``answer`` is None, i.e. a variable-length answer),
        CRC checked. ``answer``: the fixed total length of the answer."""
        self.port.drain()
        self.port.send(long_poll(address, command, data, crc=crc, variable=variable))
        return self.read_answer(address, command, answer)

    def read_answer(self, address: int, command: int, answer: int | None) -> bytes:
        deadline = time.monotonic() + self.timeout
        if answer is None:
            head = self.port.read(3, deadline)
            if len(head) < 3:
                raise NoAnswer(f"no answer to long poll {command:02X} from {address}")
            raw = head + self.port.read(head[2] + 2, deadline)
            body = raw[3:-2]
        else:
            raw = self.port.read(answer, deadline)
            body = raw[2:-2]
        if len(raw) < 4 or raw[0] != address or raw[1] != command:
            raise NoAnswer(f"no answer to long poll {command:02X} from {address} "
                           f"(got {raw.hex() or 'nothing'})")
        if crc16(raw[:-2]) != int.from_bytes(raw[-2:], "little"):
            raise NoAnswer(f"answer to {command:02X} from {address} has a bad CRC: {raw.hex()}")
        if answer is None and len(raw) != head[2] + 5:
            raise NoAnswer(f"answer to {command:02X} from {address} is truncated: {raw.hex()}")
        return body

    def ack_only(self, address: int, command: int, data: bytes = b"") -> bool:
        """A long poll the machine acknowledges by echoing its address (shutdown,
        startup); False when it did not."""
        self.port.drain()
        self.port.send(long_poll(address, command, data))
        got = self.port.read(1, time.monotonic() + self.timeout)
        return got == bytes((address,))
