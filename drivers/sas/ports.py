"""Where the SAS link plugs in: a real UART (the wakeup bit through the parity bit) or a
pseudo-terminal (no ninth bit: boundaries from content and timing).

A real line. SAS marks the first byte of every host poll with a ninth bit; a UART sends
and receives it as the parity bit. The port is opened with *space* parity (our replies go
out with the ninth bit clear, as a gaming machine's must) and the kernel is asked to mark
parity errors (``INPCK | PARMRK``): a byte whose ninth bit is set then arrives as
``FF 00 byte`` and a literal ``FF`` as ``FF FF``. :class:`ParityMarks` turns that stream
back into ``(byte, wakeup)`` pairs.

A pseudo-terminal. :class:`PtyPort` opens a pair, keeps the controlling end and *also*
holds the other end open itself, so the link's end stays usable while no host is attached
and while hosts come and go (``SAS link on PATH`` names the end a host opens).
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import termios
import tty
from typing import Protocol

from drivers.errors import DeviceError

BAUDRATE = 19200


class SasPortError(DeviceError):
    """The configured SAS port cannot be opened; the message says why."""


class LinkPort(Protocol):
    description: str
    #: True when bytes carry the wakeup bit (a real UART); False on a pty
    has_wakeup: bool

    def fileno(self) -> int: ...

    def read(self) -> list[tuple[int, bool | None]]:
        """What is there, without blocking: each byte with its wakeup bit (None: no
        ninth bit on this port)."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class ParityMarks:
    """The kernel's parity marking (PARMRK) back to ``(byte, wakeup)``; keeps a marker
    split across two reads."""

    def __init__(self) -> None:
        self._pending = bytearray()

    def decode(self, data: bytes) -> list[tuple[int, bool | None]]:
        buf = self._pending + data
        out: list[tuple[int, bool | None]] = []
        i = 0
        while i < len(buf):
            b = buf[i]
            if b != 0xFF:
                out.append((b, False))
                i += 1
            elif i + 1 >= len(buf):
                break
            elif buf[i + 1] == 0xFF:
                out.append((0xFF, False))
                i += 2
            elif buf[i + 1] == 0x00:
                if i + 2 >= len(buf):
                    break
                out.append((buf[i + 2], True))
                i += 3
            else:  # FF followed by anything else cannot come from PARMRK: a plain byte
                out.append((0xFF, False))
                i += 1
        self._pending = bytearray(buf[i:])
        return out


class PtyPort:
    """A fresh pseudo-terminal; hosts open :attr:`path`."""

    has_wakeup = False

    def __init__(self) -> None:
        self.master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line discipline, before a host opens it
        tty.setraw(self.master)
        self.path = os.ttyname(self._slave)
        os.set_blocking(self.master, False)
        self.description = f"pty {self.path}"
        self.tx_dropped = 0

    def fileno(self) -> int:
        return self.master

    def read(self) -> list[tuple[int, bool | None]]:
        try:
            data = os.read(self.master, 4096)
        except BlockingIOError:
            return []
        except OSError as exc:
            if exc.errno == errno.EIO:
                return []
            raise
        return [(b, None) for b in data]

    def write(self, data: bytes) -> None:
        """Never blocks: with nobody reading, what does not fit is dropped (counted)."""
        try:
            n = os.write(self.master, data)
        except BlockingIOError:
            n = 0
        self.tx_dropped += len(data) - n

    def flush_stale(self) -> None:
        """Drop replies nobody read (a host that left mid-answer), so the next host
        starts clean."""
        with contextlib.suppress(termios.error):
            termios.tcflush(self._slave, termios.TCIFLUSH)

    def close(self) -> None:
        for fd in (self.master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class UartPort:
    """A real serial port at 19200 8 data bits, the ninth bit through space parity."""

    has_wakeup = True

    def __init__(self, path: str) -> None:
        import serial

        try:
            self._serial = serial.Serial(path, BAUDRATE, bytesize=serial.EIGHTBITS,
                                         parity=serial.PARITY_SPACE, timeout=0,
                                         write_timeout=0.05)
        except (serial.SerialException, ValueError, OSError) as exc:
            raise SasPortError(f"cannot open the SAS port {path}: {exc}") from None
        fd = self._serial.fileno()
        attrs = termios.tcgetattr(fd)
        attrs[0] |= termios.INPCK | termios.PARMRK
        attrs[0] &= ~(termios.IGNPAR | termios.ISTRIP)
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
        self._marks = ParityMarks()
        self.description = f"uart {path}"

    def fileno(self) -> int:
        return int(self._serial.fileno())

    def read(self) -> list[tuple[int, bool | None]]:
        data = self._serial.read(self._serial.in_waiting or 1)
        return self._marks.decode(bytes(data))

    def write(self, data: bytes) -> None:
        import serial

        with contextlib.suppress(serial.SerialTimeoutException):
            self._serial.write(data)

    def close(self) -> None:
        self._serial.close()


def open_port(spec: str) -> LinkPort:
    """``pty`` (a new pseudo-terminal) or a device path (a real UART)."""
    if spec == "pty":
        return PtyPort()
    if not spec.startswith("/dev/"):
        raise SasPortError(f"SAS port {spec!r}: give a device path (/dev/ttyUSB0) or 'pty'")
    return UartPort(spec)


def wait_readable(port: LinkPort, timeout: float) -> bool:
    """Whether the port has bytes within ``timeout`` seconds."""
    ready, _w, _x = select.select([port.fileno()], [], [], max(0.0, timeout))
    return bool(ready)
