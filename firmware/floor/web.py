"""The pit view over HTTP (Starlette): log in, the floor page, a table's page, live
updates, and the few things the pit may do (:mod:`firmware.floor.pit_actions`).

Every page needs a floor staff session; every form that changes anything carries the
session's CSRF token and needs a supervisor. A page whose data the database cannot give
(the database away) is a 503 naming the problem, never a traceback. Every response
carries the security headers (:data:`SECURITY_HEADERS`): a Content-Security-Policy that
allows only the pit view's own scripts and style sheet (no inline script at all), no
framing, no type sniffing.
"""

from __future__ import annotations

import asyncio
import logging
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

from firmware.floor import auth, chart, pages, pit_data, table_html, topics
from firmware.floor.db import Database
from firmware.floor.errors import DatabaseAway
from firmware.floor.escape import text as escape
from firmware.floor.hub import Hub
from firmware.floor.page_assets import COMMON_JS, STYLE
from firmware.floor.pit_actions import PitActions
from firmware.floor.pit_script import PIT_JS
from firmware.floor.software_check import SoftwareChecks
from firmware.floor.table_html import TABLE_JS

COOKIE = "etg_floor"
KEEPALIVE_S = 15.0
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'none'; script-src 'self'; style-src 'self';"
     b" img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none';"
     b" base-uri 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]
STATIC = {"pit.css": (STYLE, "text/css"), "common.js": (COMMON_JS, "text/javascript"),
          "pit.js": (PIT_JS, "text/javascript"), "table.js": (TABLE_JS, "text/javascript")}


class SecurityHeaders:
    """ASGI middleware: the security headers on every HTTP response (pages, the live
    stream, the chart, errors alike)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        private = not str(scope.get("path", "")).startswith("/static/")

        async def with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _v in message.get("headers", [])}
                more = [h for h in SECURITY_HEADERS if h[0] not in have]
                if private and b"cache-control" not in have:  # the pit's data: no copies
                    more.append((b"cache-control", b"no-store"))
                message["headers"] = [*message.get("headers", []), *more]
            await send(message)

        await self.app(scope, receive, with_headers)


class _PitApp(Starlette):
    """Starlette with :class:`SecurityHeaders` outside its error handler, so a 500 carries
    the headers too."""

    def build_middleware_stack(self) -> Any:
        return SecurityHeaders(super().build_middleware_stack())


class PitView(PitActions):
    """The pit view's request handlers over one database connection and the hub."""

    def __init__(self, db: Database, hub: Hub, send_command: Callable[..., str],
                 checks: SoftwareChecks | None = None,
                 pit_action: Callable[[str, dict[str, Any]], None] | None = None,
                 day_start_minutes: int = 360) -> None:
        self.db = db
        self.hub = hub
        self.send_command = send_command
        self.checks = checks
        self.pit_action = pit_action or (lambda tid, action: None)
        self.day_start = day_start_minutes
        self.throttle = auth.Throttle()

    async def who(self, request: Request) -> auth.Session | None:
        return await run_in_threadpool(auth.session, self.db, request.cookies.get(COOKIE))

    @staticmethod
    def to_login() -> Response:
        return RedirectResponse("/login", status_code=303)

    async def login_form(self, request: Request) -> Response:
        return HTMLResponse(pages.login_page())

    async def login(self, request: Request) -> Response:
        form = await request.form()
        name, address = str(form.get("name", ""))[:200], _address(request)
        name = "".join(c if c.isprintable() else "?" for c in name)  # no login has others
        wait = self.throttle.admit(name, address)
        if wait > 0:
            auth.login_log.line(logging.WARNING, "floor login refused unchecked: %r from %s "
                                "(too many failures; %.0f s to wait)", name[:64], address, wait)
            return HTMLResponse(pages.login_page(
                f"too many failed logins: try again in {wait / 60:.0f} min"),
                status_code=429, headers={"Retry-After": str(int(wait) + 1)})
        s = await run_in_threadpool(auth.log_in, self.db, name,
                                    str(form.get("password", "")), address, self.throttle)
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

        q = _alarm_query(request)

        def read() -> tuple[list[dict[str, Any]], dict[str, Any]]:
            return (pit_data.tiles(self.db, None, self.day_start),
                    pit_data.alarm_list(self.db, **q))

        tiles, alarms = await run_in_threadpool(read)
        return HTMLResponse(pages.floor_page(tiles, alarms, s.name, s.csrf,
                                             self.hub.health_now(), s.role))

    async def table(self, request: Request) -> Response:
        s = await self.who(request)
        if s is None:
            return self.to_login()
        tid = request.path_params["tid"]
        if not topics.valid_table_id(tid):  # (nothing else can be in the database)
            return HTMLResponse("no such table", status_code=404)

        def read() -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
            return (pit_data.table_page(self.db, tid, day_start_minutes=self.day_start),
                    pit_data.alarm_list(self.db, table=tid)["items"])

        page, alarms = await run_in_threadpool(read)
        if page is None:
            return HTMLResponse("no such table", status_code=404)
        return HTMLResponse(table_html.table_page(page, alarms, s.name, s.csrf,
                                                  self.hub.health_now(), s.role))

    async def static(self, request: Request) -> Response:
        found = STATIC.get(request.path_params["name"])
        if found is None:
            return Response("not found", status_code=404)
        return Response(found[0], media_type=found[1],
                        headers={"Cache-Control": "no-cache"})

    async def chart(self, request: Request) -> Response:
        if await self.who(request) is None:
            return Response("log in", status_code=401)
        tid = request.path_params["tid"]
        if not topics.valid_table_id(tid):
            return Response("no such table", status_code=404)
        day, points = await run_in_threadpool(pit_data.chart_points, self.db, tid,
                                              self.day_start)
        return Response(chart.day_chart(tid, day, points, self.day_start),
                        media_type="image/svg+xml", headers={"Cache-Control": "no-store"})

    async def api_tables(self, request: Request) -> Response:
        if await self.who(request) is None:
            return JSONResponse({"error": "log in"}, status_code=401)
        return JSONResponse(await run_in_threadpool(pit_data.tiles, self.db, None,
                                                    self.day_start))

    async def api_alarms(self, request: Request) -> Response:
        if await self.who(request) is None:
            return JSONResponse({"error": "log in"}, status_code=401)
        q = _alarm_query(request, "")
        return JSONResponse(await run_in_threadpool(lambda: pit_data.alarm_list(self.db, **q)))

    async def live(self, request: Request) -> Response:
        if await self.who(request) is None:
            return JSONResponse({"error": "log in"}, status_code=401)
        only = request.query_params.get("table") or None
        if only is not None and not topics.valid_table_id(only):
            return JSONResponse({"error": "no such table"}, status_code=404)
        # subscribe first, then read what is there: a change committed between rendering
        # the page and this request is in the snapshot, one after it in the queue
        q = self.hub.subscribe(only)
        try:
            snapshot = await run_in_threadpool(self.hub.current, only)
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


def _address(request: Request) -> str:
    return request.client.host if request.client else "?"


def _alarm_query(request: Request, prefix: str = "alarms_") -> dict[str, Any]:
    """The alarm list's page and filters from the query string (anything odd: ignored)."""
    q = request.query_params
    page = q.get(prefix + "page", "1")
    state = q.get(prefix + "state", "all")
    def text(name: str, limit: int) -> str:  # printable only: PostgreSQL refuses a NUL
        return "".join(c for c in q.get(prefix + name, "")[:limit] if c.isprintable())

    return {"page": int(page) if page.isdigit() and len(page) < 7 else 1,
            "table": text("table", 64), "kind": text("kind", 32),
            "state": state if state in pit_data.ALARM_STATES else "all"}


def _database_away(request: Request, exc: Exception) -> Response:
    return HTMLResponse(pages.page("floor database unreachable",
                                   f"<p class='alarm-line'>{escape(str(exc))}</p><p>The "
                                   "tables keep "
                                   "their reports until it is back; nothing is lost.</p>"),
                        status_code=503)


def make_app(db: Database, hub: Hub, send_command: Callable[..., str],
             lifespan: Any = None, checks: SoftwareChecks | None = None,
             pit_action: Callable[[str, dict[str, Any]], None] | None = None,
             day_start_minutes: int = 360) -> Starlette:
    """``send_command(table, action, staff, **extra)`` signs, logs and publishes; returns
    its id. ``pit_action(table, action)`` tells the ledger what the pit did."""
    v = PitView(db, hub, send_command, checks, pit_action, day_start_minutes)
    hub.day_start = day_start_minutes
    app = _PitApp(routes=[
        Route("/", v.index),
        Route("/static/{name}", v.static),
        Route("/login", v.login_form, methods=["GET"]),
        Route("/login", v.login, methods=["POST"]),
        Route("/logout", v.logout, methods=["POST"]),
        Route("/table/{tid}", v.table),
        Route("/table/{tid}/chart.svg", v.chart),
        Route("/table/{tid}/{action}", v.table_action, methods=["POST"]),
        Route("/alarm/{aid:int}/acknowledge", v.acknowledge, methods=["POST"]),
        Route("/api/tables", v.api_tables),
        Route("/api/alarms", v.api_alarms),
        Route("/live", v.live),
    ], lifespan=lifespan, exception_handlers={DatabaseAway: _database_away})
    return app


def log_command(db: Database, command_id: str, tid: str, action: str, staff: str,
                reason: str | None = None) -> None:
    db.run([("INSERT INTO floor_commands(id, table_id, action, by_name, at, reason)"
             " VALUES (?, ?, ?, ?, ?, ?)", (command_id, tid, action, staff, time.time(),
                                             reason))])
