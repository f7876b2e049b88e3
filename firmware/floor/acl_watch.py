"""A table the broker's ACL keeps refusing: counted per table, reported to the ledger.

The broker (Mosquitto, :mod:`firmware.floor.broker_process`) refuses what a table may not
do — publish to another table's topics, subscribe outside its own command and
acknowledgement — and says so in its log, which the floor bounds (a few lines a minute
per client). A bounded log is not enough: an honest table is never refused (the ACL grants
exactly what the table link does), so a refused table is misbehaving, and the pit must see
it on its tile and the floor must count it toward quarantine like a bad message.

The broker's client id is its certificate's common name (``use_username_as_clientid``),
so a refusal names the table that did it, never one it pretends to be. Reports are bounded
too: each table at most once every :data:`REPORT_S` seconds, with the count of refusals
since its last report (a refusal flood of 8,000 a second is one report a second).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from firmware.floor.certs import FLOOR_SERVICE
from firmware.floor.topics import valid_table_id

#: seconds between two reports of one table's refusals
REPORT_S = 1.0
#: tables whose counts are held at once (certificates bound them; this bounds a bug)
MAX_TABLES = 100_000

log = logging.getLogger("etg.floor.broker")

Report = Callable[[str, dict[str, Any]], None]


def refused(text: str) -> tuple[str, str, int] | None:
    """(client, what, how many) of a broker line that says the ACL refused a client (the
    line as :func:`firmware.floor.broker_process.judge` labels it; the log's sieve counts
    one client's refusals past its share of a second in one line), else None."""
    if text.startswith("refused by the ACL: Denied PUBLISH from "):
        parts = text.split(" ")
        n = 1
        if len(parts) > 9 and parts[8][:1] == "(" and parts[8][1:].isdigit() \
                and parts[9] == "more":
            n = min(int(parts[8][1:]), 10**9)
        return (parts[7] if len(parts) > 7 else ""), "publish", n
    if text.endswith("outside what it may read (the ACL delivers nothing of it)"):
        return text.split(" ", 1)[0], "subscription", 1
    if text.startswith("Client ") and text.endswith((
            " disconnected due to oversize packet.", " disconnected due to oversize payload.")):
        # an honest link never sends past its own bound: a refused publish (red team r43 F5)
        return text.split(" ", 2)[1], "publish", 1
    return None


class RefusalWatch:
    """Counts each table's refusals (the broker log's reader thread) and hands the ledger
    one report per table per :data:`REPORT_S` (``report(table_id, payload)``)."""

    def __init__(self, report: Report | None = None, every_s: float = REPORT_S) -> None:
        self.report = report
        self.every_s = every_s
        self._lock = threading.Lock()
        #: table → [time of its last report, refusals since, publishes, the first since]
        self._held: dict[str, list[Any]] = {}

    def saw(self, text: str, now: float) -> None:
        got = refused(text)
        if got is None:
            return
        client, what, n = got
        if client == FLOOR_SERVICE or not valid_table_id(client):
            return  # not a table (the floor's own refusals are its bug, logged)
        with self._lock:
            h = self._held.get(client)
            if h is None:
                if len(self._held) >= MAX_TABLES:
                    return
                h = self._held[client] = [float("-inf"), 0, 0, ""]
            h[1] += n
            h[2] += n if what == "publish" else 0
            if not h[3]:
                h[3] = text[:300]
            if now - h[0] < self.every_s:
                return
            payload = {"count": h[1], "publishes": h[2], "subscriptions": h[1] - h[2],
                       "sample": h[3]}
            h[:] = [now, 0, 0, ""]
        self._send(client, payload)

    def flush(self, now: float) -> None:
        """Report what is held past its time (the watchdog's tick: a burst's tail is not
        left waiting for the table's next refusal)."""
        due: list[tuple[str, dict[str, Any]]] = []
        with self._lock:
            for client, h in self._held.items():
                if h[1] and now - h[0] >= self.every_s:
                    due.append((client, {"count": h[1], "publishes": h[2],
                                         "subscriptions": h[1] - h[2], "sample": h[3]}))
                    h[:] = [now, 0, 0, ""]
        for client, payload in due:
            self._send(client, payload)

    def _send(self, client: str, payload: dict[str, Any]) -> None:
        """Contained: the broker's log reader must never stop for the ledger's sake."""
        if self.report is None:
            return
        try:
            self.report(client, payload)
        except Exception:
            log.exception("table %s: its ACL refusals could not be reported", client)
