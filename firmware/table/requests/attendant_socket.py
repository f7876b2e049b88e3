"""The attendant's channel into a running table: credit transfers, nothing else.

`etg credits add|out` writes through the journal's single writer. While the table runs,
that writer is the table process, so the command hands the transfer to it over a Unix
socket beside the journal (``<journal>.attendant.sock``, mode 0600: the table's own user
on this machine only, never a network port). Unlike the bench control channel it opens
in production too, and it carries only ``credits-in`` and ``credits-out``: no bench power
crosses it. The transfer is journaled and metered by the controller exactly as before.

Protocol: one JSON object per line each way: ``{"cmd": "credits-in", "seat": 2,
"cents": 1000, "id": "<client-chosen id>"}`` → ``{"ok": true, "message": "seat 2: +1000
cents"}`` or ``{"ok": false, "error": "..."}``. The id is required: the table applies a
transfer at most once per id (firmware.table.requests.transfers), so a client that gave up waiting
(``"pending": true`` in the reply) asks ``{"cmd": "transfer-status", "id": ...}`` →
``{"ok": true, "id": ..., "state": "applied" | "pending" | "not-applied", ...}``, or simply
sends the same request again.
"""

from __future__ import annotations

import queue
import threading
from pathlib import Path
from typing import Any

from firmware.table.controller import Controller, RequestHappening
from firmware.table.requests.json_lines import JsonLineServer, request
from firmware.table.requests.transfers import TransferRefused, transfer_id

COMMANDS = ("credits-in", "credits-out", "transfer-status")
#: how long a transfer request waits for the controller before answering "pending"
ANSWER_S = 15.0


def socket_path(journal_path: str | Path) -> Path:
    p = Path(journal_path)
    return p.with_name(p.name + ".attendant.sock")


class AttendantServer(JsonLineServer):
    name = "attendant"

    def __init__(self, journal_path: str | Path, ctl: Controller) -> None:
        super().__init__(socket_path(journal_path))
        self.ctl = ctl
        #: transfers handed to the controller, by id, with the queue its answer comes in:
        #: pending while that queue is empty (also after the client stopped waiting)
        self._in_flight: dict[str, queue.Queue[tuple[bool, str]]] = {}
        self._flight_lock = threading.Lock()

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        cmd = req.get("cmd")
        if cmd not in COMMANDS:
            return {"ok": False, "error": f"unknown command (allowed: {', '.join(COMMANDS)})"}
        try:
            tid = transfer_id(req.get("id"))
        except TransferRefused as exc:
            return {"ok": False, "error": str(exc)}
        if tid is None:
            return {"ok": False, "error": "a transfer carries an id chosen by the client "
                    "(\"id\": e.g. a uuid): the table applies each id at most once"}
        if cmd == "transfer-status":
            return {"ok": True, **self.ctl.transfers.status(tid, self._pending(tid))}
        args = {k: v for k, v in req.items() if k != "cmd"}
        reply: queue.Queue[tuple[bool, str]] = queue.Queue()
        with self._flight_lock:
            self._in_flight[tid] = reply
        self.ctl.put(RequestHappening(str(cmd), args, reply))
        try:
            ok, msg = reply.get(timeout=ANSWER_S)
        except queue.Empty:
            return {"ok": False, "pending": True, "id": tid, "error": (
                f"the table did not answer within {ANSWER_S:.0f} s; the transfer may still "
                f"be applied: ask with `etg credits status --id {tid}` (sending it again "
                "with the same id never applies it twice)")}
        with self._flight_lock:
            if self._in_flight.get(tid) is reply:
                del self._in_flight[tid]
        return {"ok": True, "message": msg} if ok else {"ok": False, "error": msg}

    def _pending(self, tid: str) -> bool:
        """Handed to the controller and not yet answered."""
        with self._flight_lock:
            for key, q in list(self._in_flight.items()):
                if not q.empty():
                    del self._in_flight[key]  # answered (perhaps after its client left)
            return tid in self._in_flight


def transfer(journal_path: str | Path, cmd: str, seat: int, cents: int,
             tid: str) -> tuple[bool, str]:
    """Ask the table running on ``journal_path`` for a transfer; (ok, message)."""
    reply = request(socket_path(journal_path),
                    {"cmd": cmd, "seat": seat, "cents": cents, "id": tid},
                    timeout=ANSWER_S + 5)
    return bool(reply.get("ok")), str(reply.get("message") or reply.get("error"))


def status(journal_path: str | Path, tid: str) -> dict[str, Any]:
    """What the running table knows of transfer ``tid``."""
    return request(socket_path(journal_path), {"cmd": "transfer-status", "id": tid})
