"""A JSON-lines server on a local Unix socket, and its one-request client.

The table's local channels (the bench control channel, the attendant channel) share this:
the socket file is created with mode 0600 (the table's own user on this machine only,
never a network port), each connection is served on its own thread, every request line
gets exactly one reply line, and a request that cannot be handled gets
``{"ok": false, "error": ...}`` instead of a dead socket.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

from firmware.errors import UserError


class JsonLineServer:
    """Subclasses implement :meth:`handle`: one request object in, one reply object out."""

    name = "local-socket"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.is_socket():
            self.path.unlink()  # a stale socket of a table that is gone
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self._sock.bind(str(self.path))
        except OSError as exc:
            self._sock.close()
            # e.g. "AF_UNIX path too long": a Unix socket path holds at most 107 bytes
            raise UserError(f"cannot open the local socket {self.path} ({exc}); "
                            "use a shorter journal path (--journal)") from None
        finally:
            os.umask(old)
        self._sock.listen(4)
        #: set by stop(): long-running handlers (a bench wait) give up
        self.stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)

    def start(self) -> JsonLineServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return  # closed by stop()
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rw", encoding="utf-8", newline="\n") as f:
            for line in f:
                try:
                    req = json.loads(line)
                    if not isinstance(req, dict):
                        raise ValueError("a request is a JSON object")
                    reply = self.handle(req)
                except Exception as exc:  # the client gets the reason, never a dead socket
                    reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
                f.write(json.dumps(reply, separators=(",", ":")) + "\n")
                f.flush()


def request(path: str | Path, req: dict[str, Any], timeout: float = 20.0) -> dict[str, Any]:
    """One request to a :class:`JsonLineServer`; raises OSError if nobody answers."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(str(path))
        s.sendall((json.dumps(req) + "\n").encode())
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    reply: dict[str, Any] = json.loads(buf)
    return reply
