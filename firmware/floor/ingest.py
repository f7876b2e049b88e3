"""The floor service's subscriber: every table's messages, checked at the edge, into the
ledger in batches, each table on its own.

paho's network thread checks each message against the schema (:mod:`firmware.floor.wire`)
and queues it (a bad one as ``bad``; a quarantined table's dropped). One store thread
applies what arrived (up to :data:`BATCH` records or :data:`LINGER_S`) in one transaction,
and only after the commit acknowledges to each table what the floor holds (retained on
``etg/ack/<id>``) and tells the pit view: a crash before it loses nothing (the tables
send again). Nothing a message holds stops a thread (handling is contained whole: a bad
message), nor the store's pass; both beat for the supervisor. The database away
(:class:`DatabaseAway`): the batch kept and retried; any other failure to store: the batch
applied table by table, the table whose messages fail quarantined.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from firmware.floor import topics, wire
from firmware.floor.certs import FLOOR_SERVICE, ca_paths, identity
from firmware.floor.cutoff import RESPONSE_TOPIC, BrokerCutoff
from firmware.floor.errors import DatabaseAway
from firmware.floor.escape import one_line
from firmware.floor.failures import Failures
from firmware.floor.health import Health
from firmware.floor.inbox import Size, sample
from firmware.floor.ledger import FloorLedger, Incoming
from firmware.floor.mqtt import make_client
from firmware.floor.rate import TableRate
from firmware.floor.supervise import (
    NETWORK_STUCK_S,
    PING_S,
    PING_TOPIC,
    STORE_STUCK_S,
    Supervisor,
)
from firmware.floor.table_state import Applied, ack_of, latched

log = logging.getLogger("etg.floor.ingest")

BATCH = 5000
LINGER_S = 0.02
#: a table with a gap gets its acknowledgement repeated at most this often
GAP_ACK_S = 1.0
#: bytes of messages waiting for the store thread, at most: past it, messages are dropped
#: unacknowledged (the tables send them again) rather than the floor's memory grown
INBOX_BYTES = 64 * 1024 * 1024
#: of which one table may hold at most this much: a flooding table fills its own share
#: (its excess dropped unacknowledged; an honest backlog drain is a few MB at most)
TABLE_INBOX_BYTES = 4 * 1024 * 1024
BAD_LOG_S = 10.0  # seconds between two log lines about one table's bad messages
#: the MQTT keep-alive: bounds a silent loss (a dead broker closes the connection;
#: 5 s was missed under CPU starvation: needless reconnects)
KEEPALIVE_S = 15
ONLINE_BYTES = 1024  # a presence message's bytes in a table's budget and the inbox
DEADLINE_EVERY_S = 5.0  # seconds between looks for software checks past their deadline
FAILED_PASS_S = 1.0  # seconds the store thread waits after a pass that failed
SLOW_S = 1.0  # a batch that takes longer than this to store is logged (tables wait)


class Ingest:
    def __init__(self, store: FloorLedger, floor_dir: Path, host: str, port: int,
                 on_applied: Callable[[Applied], None] | None = None,
                 health: Health | None = None, supervisor: Supervisor | None = None) -> None:
        self.store = store
        self.supervisor = supervisor or Supervisor(lambda why: None)
        self.on_applied = on_applied or (lambda a: None)
        self.health = health or Health()
        self.host, self.port = host, port
        me = identity(floor_dir, FLOOR_SERVICE)
        self.client = make_client(FLOOR_SERVICE, ca_paths(floor_dir).cert, me.cert, me.key,
                                  clean=False, draining=True)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        self.client.suppress_exceptions = True  # a second net under our own containment
        self._pinged = 0.0
        self._deadline_at = 0.0
        #: what each MQTT message brought, in order; the store thread is woken once per
        #: batch (a wake-up per message was a third of the floor's CPU at 1,000 tables)
        self.inbox: deque[list[Any]] = deque()
        self._arrived = threading.Event()
        self._queued = 0  # bytes waiting in the inbox
        self._queued_by: dict[str, int] = {}  # and by table
        self._queued_lock = threading.Lock()
        self.dropped = 0  # messages dropped (behind, or a quarantined table's)
        #: the edge's gate: tables whose messages are dropped (read by paho's thread)
        self.quarantined = {t for t, st in store.tables.items() if st.quarantined}
        self.connected = threading.Event()
        self.ingested = 0
        self._stop = False
        self._gap_acked: dict[str, float] = {}
        #: tables acknowledged since the floor (re)connected: the first news of each is
        #: answered with its ack, so what it sent meanwhile goes again at once
        self._greeted: set[str] = set()
        self._known: set[str] = set()  # table ids already checked (paho's thread)
        self._status_since: set[str] = set()  # tables with a status since the connect
        self._bad_logged: dict[str, tuple[float, int]] = {}
        self.rate = TableRate()  # each table's budget (bytes, the edge's CPU a second)
        self._charged, self._cpu_at = "", 0.0  # the table the last message is charged to
        #: messages that reached the edge, by table (what a cut-off must bring to a stop)
        self.received: dict[str, int] = {}
        self.cutoff = BrokerCutoff(  # the broker refuses a quarantined table
            lambda topic, payload: self.client.publish(topic, payload, qos=1),
            self.health.cutoff_problem,
            lost=lambda tid: self._put([Incoming(tid, "control", {"action": "cutoff-lost"},
                                                 time.time())], 0))  # the table's alarm
        #: the store's failures: one traceback a kind, then counts (docs/floor.md)
        self.failures = store.failures = Failures(log, "the floor's store",
                                                  self.health.store_problem)
        self._thread = threading.Thread(target=self._run, name="floor-store", daemon=True)

    def start(self) -> Ingest:
        self._thread.start()
        self.client.connect_async(self.host, self.port, keepalive=KEEPALIVE_S)
        self.client.loop_start()
        self.supervisor.watch("store", STORE_STUCK_S, self._thread)
        self.supervisor.watch("network", NETWORK_STUCK_S, getattr(self.client, "_thread", None),
                              active=self.connected.is_set)
        return self

    def tick(self) -> None:
        """From the watchdog, once a second: the heartbeat through the broker, and a look
        for software checks past their deadline (in the ledger's order)."""
        now = time.monotonic()
        if self.connected.is_set() and now - self._pinged >= PING_S:
            self._pinged = now
            self.client.publish(PING_TOPIC, b"1", qos=0)
        if now - self._deadline_at >= DEADLINE_EVERY_S:
            self._deadline_at = now
            self._put([Incoming("", "control", {"action": "software-deadline"},
                                time.time())], 0)
        self.cutoff.tick(now)

    def stop(self) -> None:
        self._stop = True
        self._arrived.set()
        self._thread.join(10)
        self.client.disconnect()
        self.client.loop_stop()

    def publish_command(self, table_id: str, command: dict[str, Any]) -> None:
        self.client.publish(topics.command_topic(table_id), json.dumps(command).encode(), qos=1)

    def broker_refused(self, table_id: str, report: dict[str, Any]) -> None:
        """The broker's ACL refused this table (:mod:`firmware.floor.acl_watch`)."""
        self._put([Incoming(table_id, "acl", report, time.time())], 0)

    def pit_action(self, table_id: str, action: dict[str, Any]) -> None:
        """The pit acknowledged an alarm or cleared a quarantine: into the ledger's order."""
        if action.get("action") == "clear-quarantine":
            self.quarantined.discard(table_id)
            self.cutoff.release(table_id)
        self._put([Incoming(table_id, "control", action, time.time())], 0)

    # -- paho's thread ------------------------------------------------------------------

    def _connected(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        if rc.is_failure:
            log.warning("the broker refused the floor service: %s", rc)
            return
        self._greeted = set()
        self._status_since = set()
        client.subscribe([(topics.TABLE_WILDCARD, 1), (PING_TOPIC, 0), (RESPONSE_TOPIC, 1)])
        self.connected.set()
        self.health.broker_up(True, f"{self.host}:{self.port}")
        self.cutoff.connected(set(self.quarantined))

    def _disconnected(self, client: Any, userdata: Any, flags: Any, rc: Any,
                      props: Any) -> None:
        self.connected.clear()
        self.cutoff.disconnected()
        if not self._stop:
            self.health.broker_up(False, f"{self.host}:{self.port}")

    def _message(self, client: Any, userdata: Any, msg: Any) -> None:
        """paho's thread: nothing a message holds may escape (paho would end the thread and
        never acknowledge it: the broker delivers it again to every new floor process)."""
        cpu = time.thread_time()  # the thread's CPU since the last message: its table's
        if self._charged:  # (TableRate; one clock read a message, paho's read included)
            self.rate.spent(self._charged, cpu - self._cpu_at)
        self._cpu_at, self._charged = cpu, ""
        try:
            self._take_message(msg)
        except Exception as exc:
            try:
                self._contained(msg, exc)
            except Exception:
                log.exception("a message on %r could not even be refused", msg.topic[:120])

    def _contained(self, msg: Any, exc: Exception) -> None:
        where = topics.parse_table_topic(str(msg.topic))
        why = f"the floor could not take it ({type(exc).__name__}: {one_line(exc)[:200]})"
        if where is None or not topics.valid_table_id(where[0]):
            log.error("a message on %r: %s", str(msg.topic)[:120], why)
            return
        now = time.time()
        self._log_bad(where[0], msg.topic, why, now)
        self._put([Incoming(where[0], "bad", {"topic": msg.topic, "reason": why,
                                              "sample": sample(bytes(msg.payload or b""))},
                            now)], 0)

    def _take_message(self, msg: Any) -> None:
        if msg.topic == PING_TOPIC:
            self.supervisor.beat("network")
            return
        if msg.topic == RESPONSE_TOPIC:
            self.cutoff.answered(msg.payload)
            return
        where = topics.parse_table_topic(msg.topic)
        if where is None or (where[0] not in self._known and
                             not topics.valid_table_id(where[0])):
            log.warning("a message on %s dropped: not a table's topic",
                        one_line(msg.topic[:120]))
            return
        tid, kind = where
        self._known.add(tid)
        self.received[tid] = self.received.get(tid, 0) + 1
        now, payload = time.time(), msg.payload
        # every message spends the table's budget (its presence a nominal 64 bytes, so a
        # table flipping it as fast as it can is bounded too: memory, the store's time)
        if not self.rate.take(tid, max(len(payload), ONLINE_BYTES), time.monotonic()):
            # dropped unacknowledged; at most once a second the count to the ledger: a
            # `rate` alarm, each a strike toward quarantine (TableRate.over)
            if (count := self.rate.over(tid, now)) is not None:
                self._put([Incoming(tid, "rate", {"count": count}, now)], 0)
            return
        self._charged = tid
        if kind == topics.ONLINE and payload in (b"0", b"1"):  # (else: a bad message)
            self._put([Incoming(tid, "online", payload == b"1", now)], ONLINE_BYTES)
            return
        if tid in self.quarantined:
            self.dropped += 1
            return
        if not payload and kind == topics.STATUS:
            return  # a retained status cleared (MQTT's way: an empty one; a load test's)
        try:
            if kind == topics.RECORDS:
                items = [Incoming(tid, "record", r, now) for r in wire.records(payload)]
            elif kind == topics.STATUS:
                st = wire.status(payload)
                if st["sent"] is not None and self._live_status(tid, msg):
                    self.health.lag_sample(now - st["sent"], tid)
                items = [Incoming(tid, "status", st, now)]
            elif kind == topics.ONLINE:
                raise wire.BadMessage("a presence message is 0 or 1")
            elif kind == topics.SIGNATURE:
                items = [Incoming(tid, "signature", wire.signature(payload), now)]
            else:
                raise wire.BadMessage("not a topic a table writes")
        except wire.BadMessage as exc:
            self._log_bad(tid, msg.topic, str(exc), now)
            items = [Incoming(tid, "bad", {"topic": msg.topic, "reason": str(exc),
                                           "sample": sample(payload)}, now)]
        self.health.heard(now)
        self._put(items, len(payload))

    def _live_status(self, tid: str, msg: Any) -> bool:
        """Whether a status is live (its ``sent`` is the lag), not the retained copy that
        comes first after the floor subscribes (Mosquitto marks live ones retained too)."""
        if tid in self._status_since:
            return True
        self._status_since.add(tid)
        return not getattr(msg, "retain", False)

    def _put(self, items: list[Incoming], size: int) -> None:
        tid = items[0].table_id if items else ""
        with self._queued_lock:
            mine = self._queued_by.get(tid, 0)
            if self._queued + size > INBOX_BYTES or (size and mine + size > TABLE_INBOX_BYTES):
                self.dropped += 1
                if self.dropped % 1000 == 1:
                    log.warning("the floor is behind: %d messages dropped so far (not "
                                "acknowledged: the tables send them again; the last from "
                                "%s, %d bytes of its messages waiting)", self.dropped,
                                tid or "?", mine)
                return
            self._queued += size
            if size:
                self._queued_by[tid] = mine + size
        self.inbox.append([*items, Size(size, tid)] if size else items)
        if not self._arrived.is_set():
            self._arrived.set()

    def _log_bad(self, tid: str, topic: str, reason: str, now: float) -> None:
        last, count = self._bad_logged.get(tid, (0.0, 0))
        if now - last < BAD_LOG_S:
            self._bad_logged[tid] = (last, count + 1)
            return
        log.warning("table %s: bad message on %s refused: %s%s", tid, one_line(topic),
                    one_line(reason), f" ({count} more since the last line)" if count else "")
        self._bad_logged[tid] = (now, 0)

    # -- the store thread ---------------------------------------------------------------

    def take(self, limit: int = BATCH) -> list[Any]:
        """What waits in the inbox, in order, up to about ``limit`` items."""
        batch: list[Any] = []
        while self.inbox and len(batch) < limit:
            batch += self.inbox.popleft()
        return batch

    def _run(self) -> None:
        while not self._stop:
            self.supervisor.beat("store")
            try:
                self._pass()
            except Exception as exc:  # a bug here must not end the store thread; the batch
                # is dropped unacknowledged (the tables send it again)
                self.failures.failed(exc, "the store thread")
                time.sleep(FAILED_PASS_S)

    def _pass(self) -> None:
        if not self._arrived.wait(1.0) or self._stop:
            return
        time.sleep(LINGER_S)  # let a batch gather
        self._arrived.clear()  # before taking: what arrives from now on wakes again
        batch = self.take()
        if self.inbox:
            self._arrived.set()  # more than one batch waits
        sizes = [i for i in batch if isinstance(i, Size)]
        with self._queued_lock:
            for i in sizes:
                self._queued -= i.size
                left = self._queued_by.get(i.table_id, 0) - i.size
                if left > 0:
                    self._queued_by[i.table_id] = left
                else:
                    self._queued_by.pop(i.table_id, None)
        batch = [i for i in batch if not isinstance(i, Size)]
        if batch:
            self._apply(batch)

    def _apply(self, batch: list[Incoming]) -> None:
        delay = 0.5
        while not self._stop:
            self.supervisor.beat("store")
            try:
                t0 = time.monotonic()
                applied = self.store.apply(batch)
                took = time.monotonic() - t0
                if took > SLOW_S:
                    log.warning("the floor database took %.1f s to store %d messages (%d "
                                "waiting)", took, len(batch), len(self.inbox))
                self.health.database_up(True)
                self.failures.ok()
                break
            except DatabaseAway as exc:  # keep the batch, never acknowledge it
                self.health.database_up(False, str(exc))
                self.failures.failed(exc, "the database")
            except Exception:
                found = self.store.apply_each(batch)
                if found is not None:
                    applied = found
                    break
            time.sleep(delay)
            delay = min(delay * 2, 8.0)
        else:
            return
        self._after(applied)

    def _after(self, applied: Applied) -> None:
        self.ingested += applied.applied
        for tid in sorted(applied.quarantined - self.quarantined):
            self.cutoff.quarantine(tid)
        self.quarantined |= applied.quarantined
        acks = dict(applied.acks)
        now = time.monotonic()
        for tid in applied.gapped - set(acks):
            if now - self._gap_acked.get(tid, 0.0) >= GAP_ACK_S:
                self._gap_acked[tid] = now
                acks[tid] = ack_of(self.store.tables[tid])
        for tid in applied.changed - self._greeted:
            if tid in self.store.tables and tid not in self.quarantined:
                acks.setdefault(tid, ack_of(self.store.tables[tid]))
        self._greeted |= set(acks)
        for tid, ack in acks.items():
            st = self.store.tables.get(tid)
            if st is not None and (kind := latched(st)) is not None:
                log.warning("table %s: not acknowledged while its %s alarm is open (a "
                            "supervisor clears it with a reason)", tid, kind)
                continue
            self.client.publish(topics.ack_topic(tid), orjson.dumps(ack), qos=1, retain=True)
        for a in applied.alarms:
            log.error("ALARM table %s: %s: %s", a["table"], a["kind"], one_line(a["detail"]))
        try:
            self.on_applied(applied)
        except Exception:  # the pages' trouble is never the store's
            log.exception("the pit view's live update failed (the pages catch up on reload)")
