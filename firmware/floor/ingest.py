"""The floor service's subscriber: every table's messages into the store, in batches.

paho's network thread only parses and queues; one store thread takes what has arrived
(up to :data:`BATCH` records or :data:`LINGER_S`), applies it in one database
transaction, and only after the commit acknowledges to each table the highest outbox
number now held (retained on ``etg/ack/<id>``) and tells the pit view what changed. A
crash before the commit loses nothing: the acknowledgement was not sent, so the tables
send those messages again.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from firmware.floor import topics
from firmware.floor.certs import FLOOR_SERVICE, ca_paths, identity
from firmware.floor.ledger import Applied, FloorLedger, Incoming
from firmware.floor.mqtt import make_client

log = logging.getLogger("etg.floor.ingest")

BATCH = 5000
LINGER_S = 0.02
#: a table with a gap gets its acknowledgement repeated at most this often
GAP_ACK_S = 1.0


class Ingest:
    def __init__(self, store: FloorLedger, floor_dir: Path, host: str, port: int,
                 on_applied: Callable[[Applied], None] | None = None) -> None:
        self.store = store
        self.on_applied = on_applied or (lambda a: None)
        self.host, self.port = host, port
        me = identity(floor_dir, FLOOR_SERVICE)
        self.client = make_client("etg-floor-service", ca_paths(floor_dir).cert, me.cert,
                                  me.key, clean=False, draining=True)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        #: what one MQTT message brought (a status, or a table's next records), in order
        self.inbox: queue.Queue[list[Incoming] | None] = queue.Queue()
        self.connected = threading.Event()
        self.ingested = 0
        self._stop = False
        self._gap_acked: dict[str, float] = {}
        self._thread = threading.Thread(target=self._run, name="floor-store", daemon=True)

    def start(self) -> Ingest:
        self._thread.start()
        self.client.connect_async(self.host, self.port, keepalive=10)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        self._stop = True
        self.inbox.put(None)
        self._thread.join(10)
        self.client.disconnect()
        self.client.loop_stop()

    def publish_command(self, table_id: str, command: dict[str, Any]) -> None:
        self.client.publish(topics.command_topic(table_id), json.dumps(command).encode(), qos=1)

    # -- paho's thread ------------------------------------------------------------------

    def _connected(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        if rc.is_failure:
            log.warning("the broker refused the floor service: %s", rc)
            return
        client.subscribe(topics.TABLE_WILDCARD, qos=1)
        self.connected.set()
        log.info("floor service connected to the broker %s:%d", self.host, self.port)

    def _disconnected(self, client: Any, userdata: Any, flags: Any, rc: Any,
                      props: Any) -> None:
        self.connected.clear()

    def _message(self, client: Any, userdata: Any, msg: Any) -> None:
        where = topics.parse_table_topic(msg.topic)
        if where is None:
            return
        tid, kind = where
        if not topics.valid_table_id(tid):
            return
        now = time.time()
        if kind == "online":
            self.inbox.put([Incoming(tid, kind, {"online": msg.payload == b"1"}, now)])
            return
        try:
            payload: Any = orjson.loads(msg.payload)
        except orjson.JSONDecodeError:
            log.warning("table %s sent a message that is not JSON on %s", tid, msg.topic)
            return
        if kind == topics.STATUS and isinstance(payload, dict):
            self.inbox.put([Incoming(tid, kind, payload, now)])
        elif kind == topics.RECORDS and isinstance(payload, list):
            good = [Incoming(tid, r["kind"], r, now) for r in payload if _record_shape(r)]
            if len(good) < len(payload):  # the rest are held back as a gap, never skipped
                log.warning("table %s: %d malformed records dropped", tid,
                            len(payload) - len(good))
            self.inbox.put(good)
        else:
            log.warning("table %s: unexpected message on %s dropped", tid, msg.topic)

    # -- the store thread ---------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop:
            first = self.inbox.get()
            if first is None:
                break
            batch = list(first)
            deadline = time.monotonic() + LINGER_S
            while len(batch) < BATCH:
                try:
                    item = self.inbox.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    break
                if item is None:
                    self._stop = True
                    break
                batch += item
            if batch:
                self._apply(batch)

    def _apply(self, batch: list[Incoming]) -> None:
        while True:
            try:
                applied = self.store.apply(batch)
                break
            except Exception:  # the database is away: keep the batch, never ack it
                log.exception("floor database write failed; retrying")
                time.sleep(1.0)
        self.ingested += applied.applied
        acks = dict(applied.acks)
        now = time.monotonic()
        for tid in applied.gapped - set(acks):
            if now - self._gap_acked.get(tid, 0.0) >= GAP_ACK_S:
                self._gap_acked[tid] = now
                acks[tid] = self.store.tables[tid].last_n
        for tid, n in acks.items():
            self.client.publish(topics.ack_topic(tid), json.dumps({"n": n}).encode(), qos=1,
                                retain=True)
        for a in applied.alarms:
            log.error("ALARM table %s: %s", a["table"], a["detail"])
        self.on_applied(applied)


def _record_shape(p: Any) -> bool:
    return (isinstance(p, dict) and p.get("kind") in topics.RECORD_KINDS
            and isinstance(p.get("n"), int) and isinstance(p.get("seq"), int)
            and isinstance(p.get("hash"), str) and isinstance(p.get("ts_ns"), int))
