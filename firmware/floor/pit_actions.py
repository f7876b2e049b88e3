"""What the pit may do, each a POST carrying the session's CSRF token, each recorded with
who and when: disable a table (with a reason, after a confirmation on the page) or enable
it — only the one that applies —, ask it for its software signature, acknowledge an
alarm, take a table out of quarantine.

Disable and enable are signed commands to the table (``floor_commands``); acknowledging
and clearing change only the floor (``floor_alarms``, ``floor_actions``) — and neither
deletes anything: an acknowledged alarm stays, with who acknowledged it and when. Every
action needs a supervisor (a viewer's POST is a 403). Clearing takes a reason, stored
with who and when (:meth:`PitActions.record_clear`, one path for whatever the floor holds
until a supervisor clears it).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from firmware.floor import topics
from firmware.floor.command_auth import MAX_REASON
from firmware.floor.table_state import LATCH_KINDS

#: an alarm's id is a 64-bit integer
MAX_ID = 2**63 - 1

if TYPE_CHECKING:
    from firmware.floor import auth
    from firmware.floor.db import Database
    from firmware.floor.hub import Hub
    from firmware.floor.software_check import SoftwareChecks

ACTIONS = ("disable", "enable", "check-software", "clear-quarantine")


class PitActions:
    db: Database
    hub: Hub
    send_command: Callable[..., str]
    checks: SoftwareChecks | None
    pit_action: Callable[[str, dict[str, Any]], None]

    async def who(self, request: Request) -> auth.Session | None: ...

    async def _checked(self, request: Request) -> tuple[auth.Session | None, Any, Response | None]:
        s = await self.who(request)
        if s is None:
            return None, None, JSONResponse({"error": "log in"}, status_code=401)
        form = await request.form()
        if form.get("csrf") != s.csrf:
            return None, None, JSONResponse({"error": "bad or missing CSRF token"},
                                            status_code=403)
        if not s.supervisor:
            return None, None, JSONResponse({"error": "a viewer may not do this: a "
                                             "supervisor's login may"}, status_code=403)
        return s, form, None

    async def table_action(self, request: Request) -> Response:
        s, form, refused = await self._checked(request)
        if refused is not None:
            return refused
        assert s is not None
        tid, action = request.path_params["tid"], request.path_params["action"]
        if action not in ACTIONS:
            return JSONResponse({"error": f"unknown action {action!r}"}, status_code=404)
        if not topics.valid_table_id(tid):
            return JSONResponse({"error": "no such table"}, status_code=404)
        row = await run_in_threadpool(
            self.db.one, "SELECT status, quarantined FROM floor_tables WHERE table_id = ?",
            (tid,))
        if row is None:
            return JSONResponse({"error": "no such table"}, status_code=404)
        reason = str(form.get("reason") or "").strip()
        if action in ("disable", "clear-quarantine") and (
                not reason or len(reason) > MAX_REASON or not reason.isprintable()):
            return JSONResponse({"error": f"a {action} needs a reason (1 to {MAX_REASON} "
                                 "printable characters)"}, status_code=400)
        if action == "clear-quarantine" and row[1] is None:  # nothing to clear: no record
            return JSONResponse({"error": f"table {tid} is not quarantined"}, status_code=409)
        if action == "disable":
            await run_in_threadpool(self.send_command, tid, action, s.name, reason=reason)
        elif action == "enable":
            await run_in_threadpool(self.send_command, tid, action, s.name)
        elif action == "check-software":
            if self.checks is None:
                return JSONResponse({"error": "software checks are not set up"},
                                    status_code=503)
            await run_in_threadpool(self.checks.request, tid, s.name)
        else:
            await run_in_threadpool(
                self.record_clear, tid, "quarantine", s.name, reason, row[1],
                [("UPDATE floor_tables SET quarantined = NULL, quarantined_at = NULL"
                  " WHERE table_id = ?", (tid,))])
        return RedirectResponse(f"/table/{tid}", status_code=303)

    def record_clear(self, tid: str, what: str, staff: str, reason: str, was: str | None,
                     also: list[tuple[str, tuple[Any, ...]]] | None = None) -> None:
        """A supervisor clears something the floor holds on a table (a quarantine, or any
        hold another part of the floor adds): ``floor_actions`` gets who, when, why and
        what it was, in one transaction with ``also``; then the ledger is told
        (``clear-<what>``, with the reason)."""
        detail = reason + (f" (it was: {was})" if was else "")
        self.db.run([*(also or []),
                     ("INSERT INTO floor_actions(table_id, action, by_name, at, detail)"
                      " VALUES (?, ?, ?, ?, ?)",
                      (tid, f"clear-{what}", staff, time.time(), detail))])
        self.pit_action(tid, {"action": f"clear-{what}", "by": staff, "reason": reason})

    async def acknowledge(self, request: Request) -> Response:
        s, form, refused = await self._checked(request)
        if refused is not None:
            return refused
        assert s is not None
        aid = int(request.path_params["aid"])
        if not 1 <= aid <= MAX_ID:  # (the route takes any digits; the database, 64 bits)
            return JSONResponse({"error": "no such alarm"}, status_code=404)
        reason = str((form or {}).get("reason") or "").strip()
        kind = await run_in_threadpool(
            self.db.one, "SELECT kind FROM floor_alarms WHERE id = ?", (aid,))
        if kind is not None and kind[0] in LATCH_KINDS and (
                not reason or len(reason) > MAX_REASON or not reason.isprintable()):
            return JSONResponse({"error": f"clearing a {kind[0]} alarm needs a reason (1 to "
                                 f"{MAX_REASON} printable characters): until then the floor "
                                 "acknowledges nothing of this table"}, status_code=400)

        def ack() -> dict[str, Any] | None:
            row = self.db.one("SELECT table_id, kind, at, detail, ack_at FROM floor_alarms"
                              " WHERE id = ?", (aid,))
            if row is None:
                return None
            at = time.time()
            if row[4] is None:
                self.db.run([("UPDATE floor_alarms SET ack_by = ?, ack_at = ? WHERE id = ?"
                              " AND ack_at IS NULL", (s.name, at, aid))] + ([(
                    "INSERT INTO floor_actions(table_id, action, by_name, at, detail)"
                    " VALUES (?, ?, ?, ?, ?)", (row[0], f"clear-{row[1]}", s.name, at,
                                                reason))] if row[1] in LATCH_KINDS else []))
                self.pit_action(str(row[0]), {"action": "ack-alarm", "kind": row[1]})
            got = self.db.one("SELECT ack_by, ack_at FROM floor_alarms WHERE id = ?", (aid,))
            assert got is not None
            return {"id": aid, "table": row[0], "kind": row[1], "at": row[2],
                    "detail": row[3], "ack_by": got[0], "ack_at": got[1]}

        alarm = await run_in_threadpool(ack)
        if alarm is None:
            return JSONResponse({"error": "no such alarm"}, status_code=404)
        self.hub.acknowledged(alarm)
        back = request.headers.get("referer", "/")
        return RedirectResponse(back if back.startswith(("/", str(request.base_url)))
                                else "/", status_code=303)
