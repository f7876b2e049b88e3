"""Light simulated tables for `etg floor load --light`: a table's floor traffic, built in
memory, many to one thread.

Each light table sends what a real one sends — a status as a round starts and ends, then
the round's records (round, meters, chain, now and then a shoe event) numbered, sequenced
and chained like an outbox's, with cumulative, balanced meters — over its own TLS
connection and client certificate, and reads its acknowledgements. What it skips is the
table's own work: no journal, no outbox, no paho. So the generator costs a fraction of
what it measures, and one small machine can offer a floor a thousand tables.

Its state (numbers, chain, meters) is kept in ``DIR/<id>.light.json`` between runs, so a
second run continues each table's journal rather than looking like one gone back.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
import zlib
from collections import deque
from pathlib import Path
from typing import Any

from firmware.bench.mqtt_light import LightClient, tls_context
from firmware.floor import topics
from firmware.floor.certs import ca_paths, identity

SEATS = 3
START_CREDITS = 1_000_000


class LightTable:
    def __init__(self, table_id: str, state_dir: Path) -> None:
        self.table_id = table_id
        self.path = state_dir / f"{table_id}.light.json"
        self.rng = random.Random(zlib.crc32(table_id.encode()))
        s: dict[str, Any] = json.loads(self.path.read_text()) if self.path.exists() else {}
        self.n, self.seq, self.prev = s.get("n", 0), s.get("seq", 0), s.get("prev", "0" * 64)
        self.round_no = s.get("round", 0)
        self.meters: dict[str, int] = s.get("meters") or {
            "games_played": 0, "games_voided": 0, "wagered": 0, "paid": 0,
            "credits_in": 0, "credits_out": 0, "credits": 0}
        self.first_n = self.n
        self.acked = self.n
        self.rounds = 0
        self.publishes = 0
        self.latencies: list[float] = []
        self._waiting: deque[tuple[int, float]] = deque()
        #: records messages not yet acknowledged (last n, payload): sent again after a
        #: reconnect, as a real table's outbox does
        self._unacked: deque[tuple[int, bytes]] = deque()
        self.client = LightClient(table_id, self._message)

    def save(self) -> None:
        self.path.write_text(json.dumps({"n": self.n, "seq": self.seq, "prev": self.prev,
                                         "round": self.round_no, "meters": self.meters}))

    def _message(self, topic: str, payload: bytes) -> None:
        try:
            n = int(json.loads(payload)["n"])
        except (ValueError, KeyError, TypeError):
            return
        if n > self.n:
            return  # an acknowledgement of another life of this id (a retained one)
        now = time.monotonic()
        self.acked = max(self.acked, n)
        while self._unacked and self._unacked[0][0] <= n:
            self._unacked.popleft()
        while self._waiting and self._waiting[0][0] <= n:
            self.latencies.append(now - self._waiting.popleft()[1])

    def _record(self, kind: str, seq_step: int, **fields: Any) -> dict[str, Any]:
        if seq_step:
            self.seq += seq_step
            body = json.dumps(fields, sort_keys=True)
            self.prev = hashlib.sha256(f"{self.prev}{self.seq}{body}".encode()).hexdigest()
        self.n += 1
        return {"kind": kind, "n": self.n, "seq": self.seq, "hash": self.prev,
                "ts_ns": time.time_ns(), **fields}

    def _status(self, phase: str) -> None:
        st = {"v": topics.VERSION, "variant": "blackjack", "phase": phase,
              "round": self.round_no, "tilt": None, "failure": None, "closed": False,
              "software": {"version": "load", "config": None, "release": None},
              "seq": self.seq, "head": self.prev, "ts": time.time(), "sent": time.time(),
              "simulated": True}
        if self.client.connected.is_set():
            self.client.publish(topics.table_topic(self.table_id, topics.STATUS),
                                json.dumps(st, separators=(",", ":")).encode(), retain=True,
                                qos=0)  # as the link does (compact)

    def _publish(self, records: list[dict[str, Any]]) -> None:
        payload = json.dumps(records, separators=(",", ":"),
                             sort_keys=True).encode()  # as an outbox writes them
        self._unacked.append((self.n, payload))
        if self.client.connected.is_set():  # (else sent again once it is back)
            self.client.publish(topics.table_topic(self.table_id, topics.RECORDS), payload)
        self._waiting.append((self.n, time.monotonic()))
        self.publishes += 1

    def start(self) -> None:
        """A new table's first records: the attendant's credits in."""
        if self.meters["credits_in"]:
            return
        recs = []
        for seat in range(1, SEATS + 1):
            self.meters["credits_in"] += START_CREDITS
            self.meters["credits"] += START_CREDITS
            recs.append(self._record("event", 1, code=800, round=None,
                                     body={"seat": seat, "cents": START_CREDITS}))
            recs.append(self._record("meters", 0, meters=dict(self.meters)))
        self._publish(recs)

    def play_round(self) -> None:
        self._status("dealing")
        self.round_no += 1
        r = self.rng
        stakes = [r.choice((500, 1000, 2500)) for _ in range(SEATS)]
        returns = [r.choice((0, 0, s, 2 * s)) for s in stakes]
        m = self.meters
        m["games_played"] += 1
        m["wagered"] += sum(stakes)
        m["paid"] += sum(returns)
        m["credits"] += sum(returns) - sum(stakes)
        record = {"round": self.round_no, "state": "settled", "variant": "blackjack",
                  "dealer": {"cards": ["KS", "7H"], "total": 17, "hole_revealed": True},
                  "seats": [{"seat": i + 1, "net": returns[i] - stakes[i]}
                            for i in range(SEATS)]}
        recs = [self._record("round", 5, round=self.round_no, record=record)]
        recs.append(self._record("meters", 0, meters=dict(m, balanced=True)))
        recs.append(self._record("chain", 0, head=self.prev))
        if r.random() < 0.1:
            recs.append(self._record("event", 1, code=217, round=self.round_no,
                                     body={"cards_dealt": r.randint(1, 300)}))
        self._publish(recs)
        self.rounds += 1
        self._status("settled")


async def _connect(t: LightTable, floor_dir: Path, host: str, port: int) -> None:
    me = identity(floor_dir, t.table_id)
    online = topics.table_topic(t.table_id, topics.ONLINE)
    await t.client.connect(host, port, tls_context(ca_paths(floor_dir).cert, me.cert,
                                                   me.key), will=(online, b"0"))
    await t.client.subscribe(topics.ack_topic(t.table_id))
    t.client.publish(online, b"1", retain=True)  # as a real table's link announces it


async def connect_all(tables: list[LightTable], floor_dir: Path, host: str,
                      port: int) -> None:
    async def one(t: LightTable) -> None:
        await _connect(t, floor_dir, host, port)
        t.start()

    for i in range(0, len(tables), 20):  # a few handshakes at a time
        await asyncio.gather(*(one(t) for t in tables[i:i + 20]))


async def keep_connected(t: LightTable, floor_dir: Path, host: str, port: int) -> None:
    """Reconnect a table whose connection ended (a broker or floor restart), with the
    real link's back-off (1 s, then 2 s), and send what the floor has not acknowledged
    again, as the real link does (its acknowledgement, retained, arrives on subscribe):
    without it, an outage was counted as records "lost" (red team h43 F2). Cancel it
    to stop."""
    while True:
        await t.client.lost.wait()
        delay = 1.0
        while not t.client.connected.is_set():
            await asyncio.sleep(delay)
            delay = 2.0
            try:
                await asyncio.wait_for(_connect(t, floor_dir, host, port), 10.0)
            except (TimeoutError, OSError):  # (ssl and refusals are OSErrors too)
                continue
        for _n, payload in list(t._unacked):
            t.client.publish(topics.table_topic(t.table_id, topics.RECORDS), payload)


async def drive(tables: list[LightTable], rounds_per_s: float, seconds: float) -> None:
    """Each table ``rounds_per_s`` rounds a second, spread evenly over time."""
    period = 1.0 / (rounds_per_s * len(tables))
    start, k = time.monotonic(), 0
    while time.monotonic() - start < seconds:
        tables[k % len(tables)].play_round()
        k += 1
        delay = start + k * period - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        elif k % 50 == 0:
            await asyncio.sleep(0)  # behind: still let the acknowledgements in


async def drained(tables: list[LightTable], timeout: float) -> float | None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if all(t.acked >= t.n for t in tables):
            return time.monotonic() - t0
        await asyncio.sleep(0.05)
    return None
