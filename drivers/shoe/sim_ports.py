"""Where a simulated shoe plugs in: a pseudo-terminal it creates, an existing port (any
pyserial URL), or a TCP listener for bench rigs.

Each port tells the simulator whether a controller is attached, because the real shoe
greets every (re)connection with ``HEL`` (ICD §4) and stays quiet with nobody there. A
pty knows it exactly: its master sees POLLHUP while no process holds the slave open.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import socket
import tty
from typing import Any, Protocol

import serial

from drivers.shoe.driver import BAUDRATE
from etgcore.errors import UserError


class SimPort(Protocol):
    description: str

    def fds(self) -> list[int]:
        """Descriptors to wait on for input (empty: poll again soon)."""

    def service(self) -> tuple[bytes, bool]:
        """Read what is there without blocking; say whether a controller is attached."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class PtyPort:
    """A new pseudo-terminal; the controller opens :attr:`path` (or ``link``, a symlink
    standing in for the udev name ``/dev/etg-shoe``)."""

    def __init__(self, link: str | None = None) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline, before anyone opens it
        self.path = os.ttyname(slave)
        os.close(slave)
        os.set_blocking(self.master, False)
        self.link = link
        if link:
            try:
                # Replace a stale link from an earlier run, never a file someone keeps there.
                if os.path.lexists(link) and not os.path.islink(link):
                    raise FileExistsError(errno.EEXIST, "exists and is not a symlink", link)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(link)
                os.symlink(self.path, link)
            except OSError:
                os.close(self.master)
                raise
        self.description = f"pty {self.path}" + (f" (as {link})" if link else "")
        self._poll = select.poll()
        self._poll.register(self.master, select.POLLIN | select.POLLHUP | select.POLLERR)
        self.tx_dropped = 0

    def _attached(self) -> bool:
        return not any(ev & select.POLLHUP for _, ev in self._poll.poll(0))

    def fds(self) -> list[int]:
        return [self.master] if self._attached() else []

    def service(self) -> tuple[bytes, bool]:
        chunks = []
        while True:
            try:
                data = os.read(self.master, 4096)
            except BlockingIOError:
                break
            except OSError as exc:
                if exc.errno != errno.EIO:  # EIO: nobody holds the slave open
                    raise
                break
            if not data:
                break
            chunks.append(data)
        return b"".join(chunks), self._attached()

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.master, view)
            except (BlockingIOError, OSError):
                self.tx_dropped += len(view)  # the controller does not read: like a UART
                return
            view = view[n:]

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.master)
        if self.link:
            with contextlib.suppress(OSError):
                if os.path.islink(self.link) and os.readlink(self.link) == self.path:
                    os.unlink(self.link)


class UrlPort:
    """An existing port opened with pyserial (a socat pty end, a USB gadget UART...).

    Nothing tells us a controller attached, so the shoe counts as connected from start.
    """

    def __init__(self, url: str) -> None:
        try:
            self.ser: Any = serial.serial_for_url(url, baudrate=BAUDRATE, timeout=0,
                                                  write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise UserError(f"cannot open port {url} for the simulated shoe: {exc}") from None
        self.description = f"port {url}"

    def fds(self) -> list[int]:
        try:
            return [int(self.ser.fileno())]
        except Exception:  # rfc2217 and loop:// have no descriptor: poll instead
            return []

    def service(self) -> tuple[bytes, bool]:
        n = self.ser.in_waiting
        return (self.ser.read(n) if n else b""), True

    def write(self, data: bytes) -> None:
        self.ser.write(data)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ser.close()


class TcpPort:
    """A TCP listener (loopback unless told otherwise); one controller at a time, and a new
    connection replaces the old one (it is a reconnect, greeted with ``HEL``)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.server = socket.create_server((host, port), reuse_port=False)
        self.server.setblocking(False)
        self.address: tuple[str, int] = self.server.getsockname()[:2]
        self.description = f"tcp {self.address[0]}:{self.address[1]}"
        self.client: socket.socket | None = None
        self.tx_dropped = 0

    def fds(self) -> list[int]:
        fds = [self.server.fileno()]
        if self.client is not None:
            fds.append(self.client.fileno())
        return fds

    def service(self) -> tuple[bytes, bool]:
        try:
            conn, _ = self.server.accept()
        except BlockingIOError:
            pass
        else:
            self._drop_client()
            conn.setblocking(False)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.client = conn
            return b"", False  # report a disconnect first so the machine says HEL again
        data = b""
        if self.client is not None:
            try:
                data = self.client.recv(4096)
                if not data:
                    self._drop_client()
            except BlockingIOError:
                data = b""
            except OSError:
                self._drop_client()
        return data, self.client is not None

    def _drop_client(self) -> None:
        if self.client is not None:
            with contextlib.suppress(OSError):
                self.client.close()
            self.client = None

    def write(self, data: bytes) -> None:
        if self.client is None:
            return
        try:
            self.client.sendall(data)
        except BlockingIOError:
            self.tx_dropped += len(data)  # the controller does not read: like a UART
        except OSError:
            self._drop_client()

    def close(self) -> None:
        self._drop_client()
        with contextlib.suppress(OSError):
            self.server.close()
