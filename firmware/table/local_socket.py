"""A JSON-lines server on a local Unix socket, and its one-request client.

The table's local channels (the bench control channel, the attendant channel) share this:
the socket file is created with mode 0600 (the table's own user on this machine only,
never a network port), each connection is served on its own thread, every request line
gets exactly one reply line, and a request that cannot be handled gets
``{"ok": false, "error": ...}`` instead of a dead socket.

Bounded against a hostile or broken client: at most :data:`MAX_CONNECTIONS` connections
(threads) at once — more are answered "too many" and closed —, request lines of at most
:data:`MAX_LINE` bytes, a connection idle for :data:`IDLE_TIMEOUT_S` is closed, and bytes
that are not UTF-8, or text that is not a JSON object, get an error line.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
from pathlib import Path
from typing import Any

from etgcore.errors import UserError


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
        self._sock.listen(MAX_CONNECTIONS * 2)
        #: set by stop(): long-running handlers (a bench wait) give up
        self.stopping = threading.Event()
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
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
            if not self._slots.acquire(blocking=False):
                # every connection thread busy: answer and close, never queue unboundedly
                with conn, contextlib.suppress(OSError):
                    conn.settimeout(1.0)
                    conn.sendall(_line({"ok": False, "error": "too many connections; "
                                        f"at most {MAX_CONNECTIONS} at once"}))
                continue
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(IDLE_TIMEOUT_S)
                for raw in _lines(conn):
                    conn.sendall(_line(self._reply(raw)))
        except (OSError, _LineTooLong):
            pass  # the client went away, idled, or sent an endless line (answered first)
        finally:
            self._slots.release()

    def _reply(self, raw: bytes) -> dict[str, Any]:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return {"ok": False, "error": "a request is one line of UTF-8 JSON"}
        try:
            req = json.loads(text)
        except ValueError as exc:
            return {"ok": False, "error": f"not JSON: {exc}"}
        if not isinstance(req, dict):
            return {"ok": False, "error": "a request is a JSON object"}
        try:
            return self.handle(req)
        except Exception as exc:  # the client gets the reason, never a dead socket
            return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}


#: the longest request line (bytes); a longer one is answered with an error and closed
MAX_LINE = 8192
#: connections served at once (one thread each); more are answered "too many" and closed
MAX_CONNECTIONS = 8
#: a connection silent this long is closed (a client that holds a slot and says nothing)
IDLE_TIMEOUT_S = 30.0


class _LineTooLong(Exception):
    pass


def _line(reply: dict[str, Any]) -> bytes:
    return (json.dumps(reply, separators=(",", ":")) + "\n").encode("utf-8")


def _lines(conn: socket.socket) -> Any:
    """The request lines of one connection, each at most MAX_LINE bytes."""
    buf = b""
    while True:
        chunk = conn.recv(4096)
        if not chunk:
            return
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if len(line) > MAX_LINE:
                _too_long(conn)
            yield line
        if len(buf) > MAX_LINE:
            _too_long(conn)


def _too_long(conn: socket.socket) -> None:
    conn.sendall(_line({"ok": False, "error": f"request line longer than {MAX_LINE} bytes; "
                        "connection closed"}))
    raise _LineTooLong


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
