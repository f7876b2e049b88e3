"""The attendant's channel into a running table: credit transfers, nothing else.

`etg credits add|out` writes through the journal's single writer. While the table runs,
that writer is the table process, so the command hands the transfer to it over a Unix
socket beside the journal (``<journal>.attendant.sock``, mode 0600: the table's own user
on this machine only, never a network port). Unlike the bench control channel it opens
in production too, and it carries only ``credits-in`` and ``credits-out``: no bench power
crosses it. The transfer is journaled and metered by the controller exactly as before.

Protocol: one JSON object per line each way: ``{"cmd": "credits-in", "seat": 2,
"cents": 1000}`` → ``{"ok": true, "message": "seat 2: +1000 cents"}`` or
``{"ok": false, "error": "..."}``.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import threading
from pathlib import Path
from typing import Any

from firmware.table.controller import CommandHappening, Controller

COMMANDS = ("credits-in", "credits-out")


def socket_path(journal_path: str | Path) -> Path:
    p = Path(journal_path)
    return p.with_name(p.name + ".attendant.sock")


class AttendantServer:
    def __init__(self, journal_path: str | Path, ctl: Controller) -> None:
        self.path = socket_path(journal_path)
        self.ctl = ctl
        if self.path.is_socket():
            self.path.unlink()  # a stale socket of a table that is gone (we hold its lock)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            self._sock.bind(str(self.path))
        finally:
            os.umask(old)
        self._sock.listen(4)
        self._thread = threading.Thread(target=self._serve, name="attendant", daemon=True)

    def start(self) -> AttendantServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rw", encoding="utf-8", newline="\n") as f:
            for line in f:
                f.write(json.dumps(self.handle(line), separators=(",", ":")) + "\n")
                f.flush()

    def handle(self, line: str) -> dict[str, Any]:
        try:
            req = json.loads(line)
            cmd = req.get("cmd") if isinstance(req, dict) else None
            if cmd not in COMMANDS:
                return {"ok": False, "error": f"unknown command (allowed: {', '.join(COMMANDS)})"}
            args = {"seat": int(req["seat"]), "cents": int(req["cents"])}
        except (ValueError, KeyError, TypeError) as exc:
            return {"ok": False, "error": f"bad request: {exc}"}
        reply: queue.Queue[tuple[bool, str]] = queue.Queue()
        self.ctl.put(CommandHappening(str(cmd), args, reply))
        try:
            ok, msg = reply.get(timeout=15)
        except queue.Empty:
            return {"ok": False, "error": "the table did not answer within 15 s"}
        return {"ok": True, "message": msg} if ok else {"ok": False, "error": msg}


def transfer(journal_path: str | Path, cmd: str, seat: int, cents: int) -> tuple[bool, str]:
    """Ask the table running on ``journal_path`` for a transfer; (ok, message)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(20)
        s.connect(str(socket_path(journal_path)))
        s.sendall((json.dumps({"cmd": cmd, "seat": seat, "cents": cents}) + "\n").encode())
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    reply = json.loads(buf)
    return bool(reply.get("ok")), str(reply.get("message") or reply.get("error"))
