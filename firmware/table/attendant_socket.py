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

import queue
from pathlib import Path
from typing import Any

from firmware.table.controller import CommandHappening, Controller
from firmware.table.local_socket import JsonLineServer, request

COMMANDS = ("credits-in", "credits-out")


def socket_path(journal_path: str | Path) -> Path:
    p = Path(journal_path)
    return p.with_name(p.name + ".attendant.sock")


class AttendantServer(JsonLineServer):
    name = "attendant"

    def __init__(self, journal_path: str | Path, ctl: Controller) -> None:
        super().__init__(socket_path(journal_path))
        self.ctl = ctl

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        cmd = req.get("cmd")
        if cmd not in COMMANDS:
            return {"ok": False, "error": f"unknown command (allowed: {', '.join(COMMANDS)})"}
        try:
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
    reply = request(socket_path(journal_path), {"cmd": cmd, "seat": seat, "cents": cents})
    return bool(reply.get("ok")), str(reply.get("message") or reply.get("error"))
