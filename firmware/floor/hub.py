"""Live updates for the pit view: from the store thread to every open page (SSE).

The store thread calls :meth:`Hub.applied` after each committed batch; the hub reads the
changed tiles once and hands them to the event loop, which fans them out to each
connected page's queue. A page that cannot keep up loses intermediate tiles (its queue
keeps the newest), never the server's time. Health changes (broker, database) go to every
page at once, and each page is sent the health as it is when it connects.
"""

from __future__ import annotations

import asyncio
from typing import Any

from firmware.floor import pit_data, pit_text
from firmware.floor.db import Database
from firmware.floor.escape import script_json
from firmware.floor.health import Health
from firmware.floor.table_state import Applied

QUEUE_MAX = 2000
#: events every page gets (the floor page ignores the rest); a table's page gets its own
FOR_ALL = ("event: tile", "event: alarm", "event: health")


class Hub:
    def __init__(self, db: Database, health: Health | None = None,
                 day_start_minutes: int = 360) -> None:
        self.db = db
        self.health = health or Health()
        self.health.listeners.append(self._health_changed)
        self.day_start = day_start_minutes
        self.loop: asyncio.AbstractEventLoop | None = None
        self.clients: set[tuple[asyncio.Queue[str], str | None]] = set()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def health_now(self) -> dict[str, Any]:
        h = self.health.snapshot()
        return {**h, "broker_since_text": pit_text.when(h["broker_since"]),
                "database_since_text": pit_text.when(h["database_since"])}

    # -- the store thread ---------------------------------------------------------------

    def applied(self, a: Applied) -> None:
        if self.loop is None or not self.clients or not a.changed:
            return
        msgs: list[tuple[str | None, str]] = []
        for tile in pit_data.tiles(self.db, a.changed, self.day_start):
            tile["as_of"] = a.as_of.get(tile["table"])
            msgs.append((tile["table"], sse("tile", tile)))
        # a table's events, meters and rounds only for the tables whose page is open (a
        # backlog drain applies thousands a second; the floor page shows none of them)
        watched = {only for _q, only in list(self.clients) if only is not None}
        if watched:
            msgs += _details(self.db, a, watched)
        for al in a.alarms:
            al = dict(al, id=self._alarm_id(al))
            msgs.append((al["table"], sse("alarm", {**al, "line": pit_text.alarm_line(al)})))
        self.loop.call_soon_threadsafe(self._fan_out, msgs)

    def acknowledged(self, alarm: dict[str, Any]) -> None:
        """An alarm acknowledged (from the event loop: the web's handler)."""
        self._fan_out([(alarm["table"], sse("alarm", {**alarm,
                                                      "line": pit_text.alarm_line(alarm)}))])

    def _alarm_id(self, al: dict[str, Any]) -> int | None:
        row = self.db.one("SELECT id FROM floor_alarms WHERE table_id = ? AND kind = ? AND"
                          " at = ?", (al["table"], al["kind"], al["at"]))
        return int(row[0]) if row else None

    def _health_changed(self, h: dict[str, Any]) -> None:
        if self.loop is not None:
            msgs: list[tuple[str | None, str]] = [(None, sse("health", self.health_now()))]
            self.loop.call_soon_threadsafe(self._fan_out, msgs)

    # -- the event loop -----------------------------------------------------------------

    def _fan_out(self, msgs: list[tuple[str | None, str]]) -> None:
        for q, only in list(self.clients):
            for tid, text in msgs:
                if only is None and not text.startswith(FOR_ALL):
                    continue
                if only is not None and tid is not None and tid != only:
                    continue
                if q.qsize() >= QUEUE_MAX:
                    q.get_nowait()
                q.put_nowait(text)

    def current(self, only: str | None) -> list[str]:
        """The tiles and the health as they are now, as SSE messages: what a page that has
        just subscribed is sent first, so nothing committed while it connected is missed."""
        tiles = pit_data.tiles(self.db, None if only is None else [only], self.day_start)
        return [sse("health", self.health_now())] + [sse("tile", t) for t in tiles]

    def subscribe(self, only: str | None) -> asyncio.Queue[str]:
        q: asyncio.Queue[str] = asyncio.Queue()
        self.clients.add((q, only))
        return q

    def unsubscribe(self, q: asyncio.Queue[str], only: str | None) -> None:
        self.clients.discard((q, only))


def _details(db: Database, a: Applied, watched: set[str]) -> list[tuple[str | None, str]]:
    """The feed lines, meters and software checks of the watched tables, in order."""
    out: list[tuple[str | None, str]] = []
    for e in a.events:
        if e["table"] in watched:
            out.append((e["table"], sse("line", {"list": "events",
                                                 "text": pit_text.event_line(e)})))
    for m in a.meters:
        if m["table"] in watched:
            out.append((m["table"], sse("meters", {
                k: pit_text.meter(k, v) for k, v in m.items() if k in pit_text.METER_NAMES})))
    for r in a.rounds:
        if r["table"] in watched:
            out.append((r["table"], sse("line", {"list": "rounds",
                                                 "text": pit_text.round_line(r)})))
    for c in a.checks:
        if c["table"] in watched:
            row = db.one("SELECT asked, by_name, seed, answered, result, detail, claimed"
                         " FROM floor_software_checks WHERE id = ?", (c["id"],))
            if row is not None:
                text = pit_text.check_line(dict(zip(
                    ("asked", "by", "seed", "answered", "result", "detail", "claimed"), row,
                    strict=True)))
                out.append((c["table"], sse("line", {"list": "checks", "text": text})))
    return out


def sse(kind: str, data: Any) -> str:
    """One server-sent event; its data written by the one JSON escaping (one line)."""
    return f"event: {kind}\ndata: {script_json(data)}\n\n"
