"""The pit view's live stream: a page that connects is first sent every tile as it is
now, so a change committed between rendering the page and opening the stream (a table
closing right after a disable's redirect) is never missed."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

from starlette.requests import Request

from firmware.floor import auth
from firmware.floor.db import Database
from firmware.floor.hub import Hub
from firmware.floor.ledger import FloorLedger, Incoming
from firmware.floor.web import PitView


def _status(tid: str, closed: bool) -> Incoming:
    return Incoming(tid, "status", {"seq": 3, "phase": "betting", "variant": "blackjack",
                                    "round": 4, "tilt": None, "closed": closed,
                                    "ts": time.time(), "sent": None}, time.time())


async def _first_messages(view: PitView, query: str, n: int) -> list[str]:
    scope = {"type": "http", "method": "GET", "path": "/live", "headers": [],
             "query_string": query.encode()}
    resp: Any = await view.live(Request(scope))
    got: list[str] = []
    it = resp.body_iterator
    try:
        while len(got) < n:
            got.append(await asyncio.wait_for(it.__anext__(), 30))
    finally:
        await it.aclose()
    return got


def _tiles(messages: list[str]) -> list[dict[str, Any]]:
    return [json.loads(m.split("data: ", 1)[1]) for m in messages
            if m.startswith("event: tile")]


@pytest.mark.parametrize("query, expect", [("table=T2", ["T2"]), ("", ["T1", "T2"])])
def test_live_stream_opens_with_the_current_tiles(tmp_path: Path, query: str,
                                                   expect: list[str]) -> None:
    db = Database(str(tmp_path / "floor.sqlite"))
    try:
        store = FloorLedger(db)
        store.apply([_status("T1", False), _status("T2", False)])
        store.apply([_status("T2", True)])  # committed before the page's stream opens
        hub = Hub(db)
        view = PitView(db, hub, send_command=lambda *a: "id")

        async def who(request: Request) -> auth.Session | None:
            return auth.Session(token="t", name="staff", csrf="c")

        view.who = who  # type: ignore[method-assign]

        async def run() -> list[str]:
            hub.attach(asyncio.get_running_loop())
            return await _first_messages(view, query, 2 + len(expect))

        messages = asyncio.run(run())
        assert messages[0] == ": live\n\n"
        assert messages[1].startswith("event: health")  # the banner's state, first
        tiles = _tiles(messages[2:])
        assert [t["table"] for t in tiles] == expect
        assert {t["table"]: t["closed"] for t in tiles}.get("T2") is True
        assert not hub.clients  # closing the stream unsubscribes the page
    finally:
        db.close()
