"""Live updates for the pit view: from the store thread to every open page (SSE).

The store thread calls :meth:`Hub.applied` after each committed batch; the hub reads the
changed tiles once and hands them to the event loop, which fans them out to each
connected page's queue. A page that cannot keep up loses intermediate tiles (its queue
keeps the newest), never the server's time.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from firmware.floor import pit_data
from firmware.floor.db import Database
from firmware.floor.ledger import Applied
from firmware.floor.pages import event_label

QUEUE_MAX = 1000


class Hub:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.loop: asyncio.AbstractEventLoop | None = None
        self.clients: set[tuple[asyncio.Queue[str], str | None]] = set()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    # -- the store thread ---------------------------------------------------------------

    def applied(self, a: Applied) -> None:
        if self.loop is None or not self.clients or not a.changed:
            return
        msgs: list[tuple[str | None, str]] = []
        for tile in pit_data.tiles(self.db, a.changed):
            tile["as_of"] = a.as_of.get(tile["table"])
            msgs.append((tile["table"], _sse("tile", tile)))
        # a table's events, meters and rounds only for the tables whose page is open (a
        # backlog drain applies thousands a second; the tiles page shows none of them)
        watched = {only for _q, only in list(self.clients) if only is not None}
        if watched:
            msgs += _details(a, watched)
        msgs += [(al["table"], _sse("alarm", al)) for al in a.alarms]
        self.loop.call_soon_threadsafe(self._fan_out, msgs)

    # -- the event loop -----------------------------------------------------------------

    def _fan_out(self, msgs: list[tuple[str | None, str]]) -> None:
        for q, only in list(self.clients):
            for tid, text in msgs:
                # the tiles page gets tiles and alarms of every table; a table's page
                # everything of its own table
                if only is None and not text.startswith(("event: tile", "event: alarm")):
                    continue
                if only is not None and tid != only:
                    continue
                if q.qsize() >= QUEUE_MAX:
                    q.get_nowait()
                q.put_nowait(text)

    def current_tiles(self, only: str | None) -> list[str]:
        """The tiles as they are now, as SSE messages: what a page that has just
        subscribed is sent first, so nothing committed while it connected is missed."""
        return [_sse("tile", tile) for tile in pit_data.tiles(self.db, None if only is None
                                                          else [only])]

    def subscribe(self, only: str | None) -> asyncio.Queue[str]:
        q: asyncio.Queue[str] = asyncio.Queue()
        self.clients.add((q, only))
        return q

    def unsubscribe(self, q: asyncio.Queue[str], only: str | None) -> None:
        self.clients.discard((q, only))


def _details(a: Applied, watched: set[str]) -> list[tuple[str | None, str]]:
    """The events, meters and rounds of the watched tables, in the order applied."""
    out: list[tuple[str | None, str]] = []
    for e in a.events:
        if e["table"] in watched:
            out.append((e["table"], _sse("event", {**e, "label": event_label(e.get("code"))})))
    for m in a.meters:
        if m["table"] in watched:
            out.append((m["table"], _sse("meters", {k: v for k, v in m.items()
                                                    if isinstance(v, int)})))
    for r in a.rounds:
        if r["table"] in watched:
            out.append((r["table"], _sse("round", dict(r))))
    return out


def _sse(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, sort_keys=True)}\n\n"
