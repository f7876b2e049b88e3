"""The pit view over HTTP (Starlette): log in, tiles, a table's page, live updates, and
the one thing the floor may change — disable or enable a table.

Every page needs a floor staff session. A disable or enable is a POST carrying the
session's CSRF token; it is written to ``floor_commands`` with the staff member's name
before it is signed and published to the table (which journals it, and reports the
change back as events and status).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from firmware.floor import auth, pages, pit_data
from firmware.floor.db import Database
from firmware.floor.hub import Hub

COOKIE = "etg_floor"
KEEPALIVE_S = 15.0


class PitView:
    """The pit view's request handlers over one database connection and the hub."""

    def __init__(self, db: Database, hub: Hub,
                 send_command: Callable[[str, str, str], str]) -> None:
        self.db = db
        self.hub = hub
        self.send_command = send_command

    async def who(self, request: Request) -> auth.Session | None:
        return await run_in_threadpool(auth.session, self.db, request.cookies.get(COOKIE))

    @staticmethod
    def to_login() -> Response:
        return RedirectResponse("/login", status_code=303)

    async def login_form(self, request: Request) -> Response:
        return HTMLResponse(pages.login_page())

    async def login(self, request: Request) -> Response:
        form = await request.form()
        s = await run_in_threadpool(auth.log_in, self.db, str(form.get("name", "")),
                                    str(form.get("password", "")))
        if s is None:
            return HTMLResponse(pages.login_page("wrong name or password"), status_code=401)
        resp = RedirectResponse("/", status_code=303)
        resp.set_cookie(COOKIE, s.token, httponly=True, samesite="strict",
                        max_age=auth.SESSION_S)
        return resp

    async def logout(self, request: Request) -> Response:
        s = await self.who(request)
        form = await request.form()
        if s is not None and form.get("csrf") == s.csrf:
            await run_in_threadpool(auth.log_out, self.db, s.token)
        resp = self.to_login()
        resp.delete_cookie(COOKIE)
        return resp

    async def index(self, request: Request) -> Response:
        s = await self.who(request)
        if s is None:
            return self.to_login()
        tiles = await run_in_threadpool(pit_data.tiles, self.db)
        return HTMLResponse(pages.tiles_page(tiles, s.name, s.csrf))

    async def table(self, request: Request) -> Response:
        s = await self.who(request)
        if s is None:
            return self.to_login()
        page = await run_in_threadpool(pit_data.table_page, self.db, request.path_params["tid"])
        if page is None:
            return HTMLResponse("no such table", status_code=404)
        return HTMLResponse(pages.table_page(page, s.name, s.csrf))

    async def api_tables(self, request: Request) -> Response:
        if await self.who(request) is None:
            return JSONResponse({"error": "log in"}, status_code=401)
        return JSONResponse(await run_in_threadpool(pit_data.tiles, self.db))

    async def command(self, request: Request) -> Response:
        s = await self.who(request)
        if s is None:
            return JSONResponse({"error": "log in"}, status_code=401)
        form = await request.form()
        if form.get("csrf") != s.csrf:
            return JSONResponse({"error": "bad or missing CSRF token"}, status_code=403)
        tid, action = request.path_params["tid"], request.path_params["action"]
        if action not in ("disable", "enable"):
            return JSONResponse({"error": f"unknown action {action!r}"}, status_code=404)
        if await run_in_threadpool(pit_data.tiles, self.db, [tid]) == []:
            return JSONResponse({"error": "no such table"}, status_code=404)
        await run_in_threadpool(self.send_command, tid, action, s.name)
        return RedirectResponse(f"/table/{tid}", status_code=303)

    async def live(self, request: Request) -> Response:
        if await self.who(request) is None:
            return JSONResponse({"error": "log in"}, status_code=401)
        only = request.query_params.get("table") or None
        # subscribe first, then read what is there: a change committed between rendering
        # the page and this request is in the snapshot, one after it in the queue
        q = self.hub.subscribe(only)
        try:
            snapshot = await run_in_threadpool(self.hub.current_tiles, only)
        except BaseException:
            self.hub.unsubscribe(q, only)
            raise

        async def stream() -> AsyncIterator[str]:
            try:
                yield ": live\n\n"
                for text in snapshot:
                    yield text
                while True:
                    try:
                        yield await asyncio.wait_for(q.get(), KEEPALIVE_S)
                    except TimeoutError:
                        yield ": keepalive\n\n"
            finally:
                self.hub.unsubscribe(q, only)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})


def make_app(db: Database, hub: Hub, send_command: Callable[[str, str, str], str],
             lifespan: Any = None) -> Starlette:
    """``send_command(table, action, staff)`` signs, logs and publishes; returns its id."""
    v = PitView(db, hub, send_command)
    return Starlette(routes=[
        Route("/", v.index),
        Route("/login", v.login_form, methods=["GET"]),
        Route("/login", v.login, methods=["POST"]),
        Route("/logout", v.logout, methods=["POST"]),
        Route("/table/{tid}", v.table),
        Route("/table/{tid}/{action}", v.command, methods=["POST"]),
        Route("/api/tables", v.api_tables),
        Route("/live", v.live),
    ], lifespan=lifespan)


def log_command(db: Database, command_id: str, tid: str, action: str, staff: str) -> None:
    db.run([("INSERT INTO floor_commands(id, table_id, action, by_name, at)"
             " VALUES (?, ?, ?, ?, ?)", (command_id, tid, action, staff, time.time()))])
