"""systemd's notify protocol (READY=1, WATCHDOG=1, STATUS=...), without a dependency.

The protocol is one datagram per message to the Unix socket named by ``NOTIFY_SOCKET``
(an abstract socket when the name starts with ``@``). Without that variable, as on a
bench or a desktop, every call is a cheap no-op.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket


class Notifier:
    def __init__(self, address: str | None = None) -> None:
        addr = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")
        self._addr = ("\0" + addr[1:]) if addr.startswith("@") else addr
        self._sock: socket.socket | None = None
        usec = os.environ.get("WATCHDOG_USEC", "")
        #: seconds between watchdog pings systemd expects (we ping at half of it)
        self.watchdog_s: float | None = int(usec) / 1e6 if usec.isdigit() else None

    @property
    def enabled(self) -> bool:
        return bool(self._addr)

    def notify(self, *lines: str) -> bool:
        if not self._addr:
            return False
        try:
            if self._sock is None:
                import socket  # a table under systemd only (the start imports no more)

                # non-blocking: a reader that stops reading (its queue holds only
                # net.unix.max_dgram_qlen datagrams) must never stall the controller's
                # thread; a ping that does not fit is dropped (False), the next one follows
                self._sock = socket.socket(
                    socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK)
            self._sock.sendto("\n".join(lines).encode("utf-8"), self._addr)
            return True
        except OSError:  # BlockingIOError included
            return False

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
