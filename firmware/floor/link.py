"""The table's floor link: drains the outbox to the broker and takes the floor's commands.

Runs on its own thread beside the controller and never blocks it: the controller only
hands over a status snapshot (:meth:`FloorLink.offer_view`); the journal wakes the link
after a commit that staged messages. With the broker or the floor down the table plays
on; the outbox keeps every message until the floor acknowledges it (``etg/ack/<id>``,
the highest outbox number the floor holds), and everything after the acknowledgement is
published again on every reconnect and whenever acknowledgements stall. The floor drops
what it already holds, so "again" is harmless and nothing is lost.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from etgcore.view import PublicView
from firmware.floor import topics
from firmware.floor.command_auth import CommandVerifier
from firmware.floor.mqtt import make_client, parse_broker
from firmware.floor.settings import FloorSettings
from firmware.journal import EventCode, Journal
from firmware.journal.outbox import Outbox, OutMessage

log = logging.getLogger("etg.floor.link")

#: seconds without acknowledgement progress before unacknowledged messages are sent again
#: (a safety net: QoS 1 loses nothing while connected; everything after the floor's
#: acknowledgement is sent again on every reconnect, and when the floor reports a gap)
RESEND_S = 30.0
#: MQTT messages published but not yet acknowledged by the broker (PUBACK), at most: paho
#: scans its whole queue on every PUBACK, so a small window keeps a large outbox drain linear
WINDOW = 16
#: outbox records one MQTT message carries, at most (and about :data:`PUBLISH_BYTES`):
#: what costs CPU on the table, the broker and the floor is mostly per MQTT message (TLS
#: record, packet, PUBACK, callbacks), so a backlog goes out in few, larger messages; a
#: table in steady play still publishes each round's records at once, without waiting
PER_PUBLISH = 100
PUBLISH_BYTES = 64 * 1024
#: a gap report (the floor repeating its acknowledgement) is acted on at most this often
GAP_RESEND_S = 1.0
#: acknowledged outbox rows are deleted at most this often
PRUNE_S = 1.0
#: a changed status is published at most this often (the latest one then): every input
#: journaled changes it (its sequence number), and a card dealt is not worth a message
STATUS_MIN_S = 0.2
#: the status is published again at least this often (the pit's "last seen", the floor's
#: clock check), even when nothing changed
HEARTBEAT_S = 30.0


def status_of(view: PublicView, closed: bool, journal: Journal,
              software: dict[str, Any]) -> dict[str, Any]:
    """The retained status: what the pit shows of a table now (public information only)."""
    tilt = view.get("tilt")
    ctl = view.get("controller")
    return {
        "variant": view.get("variant"), "phase": view.get("phase"),
        "round": view.get("round"),
        "tilt": None if not tilt else {"cause": tilt.get("cause"), "code": tilt.get("code")},
        "failure": ctl.get("failure") if ctl else None, "closed": closed, "software": software,
        "holding": ctl.get("held") if ctl else None,  # why no new round is dealt (issue 42)
        "seq": journal.last_seq, "head": journal.head, "v": topics.VERSION,
    }


class FloorLink:
    def __init__(self, table_id: str, settings: FloorSettings, journal: Journal, *,
                 software: dict[str, Any], on_command: Callable[[dict[str, Any]], None],
                 verifier: CommandVerifier | None = None,
                 signature: Callable[[bytes], dict[str, Any]] | None = None,
                 simulated: bool = False,
                 on_acknowledged: Callable[[int], None] | None = None) -> None:
        """``signature(seed)``: the seeded software signature of the installed release
        (``{"hmac", "files", "release"}``, raising on failure), handed in by whoever built
        the link (the floor package never computes it); ``simulated``: a load test's
        table (the pit hides it); ``on_acknowledged(n)``: told each acknowledgement."""
        self.table_id = table_id
        self.signature = signature
        self.simulated = simulated
        self.on_acknowledged = on_acknowledged
        #: the table's hook while it holds play for the floor's witness (every ack body)
        self.on_witness: Callable[[dict[str, Any]], None] | None = None
        self.journal = journal
        self.software = software
        self.on_command = on_command
        self._wake = threading.Event()
        self.outbox = Outbox(journal, on_commit=self._wake.set)
        self.outbox.catch_up()
        self.verifier = verifier or CommandVerifier(
            table_id, Path(settings.command_cert), Path(settings.ca))
        self.host, self.port = parse_broker(settings.broker)
        self.client = make_client(table_id, Path(settings.ca), Path(settings.cert),
                                  Path(settings.key), clean=False)
        self.client.will_set(topics.table_topic(table_id, "online"), b"0", qos=1, retain=True)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_message = self._message
        self.client.on_publish = self._published
        #: paho's receipts of the record messages published and not yet PUBACKed (only
        #: this thread publishes records; paho marks a receipt when its PUBACK arrives)
        self._flying: list[Any] = []
        self._new_window = False  # set on (re)connect: the link thread forgets old receipts
        self.connected = False
        self.acked = 0
        self._sent = 0
        self.publishes = 0  # MQTT messages of records published (the bench reports it)
        self._last_progress = time.monotonic()
        self._gap_resend = 0.0
        self._status: dict[str, Any] | None = None
        self._status_ts = 0.0
        self._status_sent: dict[str, Any] | None = None
        self._status_at = 0.0  # monotonic time of the last status published
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="floor-link", daemon=True)

    # -- lifecycle ----------------------------------------------------------------------

    def start(self) -> FloorLink:
        self.client.connect_async(self.host, self.port, keepalive=10)
        self.client.loop_start()
        self._thread.start()
        return self

    def stop(self, drain_s: float = 2.0) -> None:
        """Stop after a short wait for the floor to acknowledge what is pending (the
        POWER_DOWN event); what is left stays in the outbox for the next start."""
        if self._thread.ident is None:  # never started (the table failed to start)
            self.outbox.close()
            return
        deadline = time.monotonic() + drain_s
        self._wake.set()
        while self.connected and time.monotonic() < deadline \
                and self.acked < self.outbox.last_n():
            time.sleep(0.05)
        self._stop = True
        self._wake.set()
        self._thread.join(5)
        if self.connected:
            info = self.client.publish(topics.table_topic(self.table_id, "online"), b"0",
                                       qos=1, retain=True)
            info.wait_for_publish(1.0)
        self.client.disconnect()
        self.client.loop_stop()
        if self.acked:
            self.outbox.acknowledged(self.acked)
        self.outbox.close()

    # -- from the controller's thread ---------------------------------------------------

    def offer_view(self, view: PublicView, closed: bool) -> None:
        st = status_of(view, closed, self.journal, self.software)
        if self.simulated:
            st["simulated"] = True
        if st != self._status:
            self._status = st
            self._status_ts = time.time()
            self._wake.set()

    # -- paho's thread ------------------------------------------------------------------

    def _connected(self, client: Any, userdata: Any, flags: Any, rc: Any, props: Any) -> None:
        if rc.is_failure:
            log.warning("floor broker refused the connection: %s", rc)
            return
        client.subscribe([(topics.command_topic(self.table_id), 1),
                          (topics.ack_topic(self.table_id), 1)])
        client.publish(topics.table_topic(self.table_id, "online"), b"1", qos=1, retain=True)
        self.connected = True
        self._new_window = True
        self._sent = self.acked  # whatever the broker did not pass on goes again
        self._status_sent = None
        self._wake.set()

    def _disconnected(self, client: Any, userdata: Any, flags: Any, rc: Any,
                      props: Any) -> None:
        self.connected = False

    def _published(self, client: Any, userdata: Any, mid: Any, rc: Any, props: Any) -> None:
        if len(self._flying) >= WINDOW:
            self._wake.set()  # a place in the window may have opened

    def _message(self, client: Any, userdata: Any, msg: Any) -> None:
        try:
            body = json.loads(msg.payload)
        except ValueError:
            body = None
        if msg.topic == topics.ack_topic(self.table_id):
            if self.on_witness is not None and isinstance(body, dict):
                self.on_witness(body)  # a table holding for its witness (issue 42)
            if isinstance(body, dict) and isinstance(body.get("n"), int):
                self._acknowledged(int(body["n"]))
            return
        refusal = self.verifier.refusal(body)
        if refusal is None and isinstance(body, dict):
            self.verifier.remember(str(body["id"]))
            if body.get("action") == "authenticate":
                threading.Thread(target=self._answer_signature, args=(body,),
                                 name="floor-signature", daemon=True).start()
        self.on_command({"command": body if isinstance(body, dict) else {},
                         "refusal": refusal})

    def _answer_signature(self, cmd: dict[str, Any]) -> None:
        """The seeded software signature the floor asked for, computed now over the
        installed release (off paho's thread and the controller's: it reads every file)."""
        answer: dict[str, Any] = {"v": topics.VERSION, "id": cmd.get("id")}
        try:
            if self.signature is None:
                raise RuntimeError("this table was started without software authentication")
            seed = bytes.fromhex(str(cmd.get("seed") or ""))
            if not seed:
                raise ValueError("the request carries no seed")
            answer.update(self.signature(seed))
        except Exception as exc:  # the floor shows why there is no signature
            answer["error"] = str(exc)[:500] or type(exc).__name__
            log.warning("software authentication asked by the floor: %s", answer["error"])
        self.client.publish(topics.table_topic(self.table_id, topics.SIGNATURE),
                            json.dumps(answer).encode(), qos=1)

    def _acknowledged(self, n: int) -> None:
        if n > self.outbox.last_n():
            log.error("the floor acknowledges message %d but this journal wrote only %d: "
                      "was the journal restored from an older copy?", n, self.outbox.last_n())
            return
        now = time.monotonic()
        if n > self.acked:
            self._last_progress = now
        elif n < self.acked:
            # the floor holds less than it acknowledged before (its database restored?):
            # send again from its number (what this outbox no longer holds goes as a gap)
            self._gap_resend = now
            self._sent = n
        elif self._sent > n and now - self._gap_resend >= GAP_RESEND_S:
            # the floor repeats its acknowledgement: it is missing what follows
            self._gap_resend = now
            self._sent = n
        self.acked = n
        self._sent = max(self._sent, n)
        if self.on_acknowledged is not None:
            self.on_acknowledged(n)
        self._wake.set()

    # -- the link's thread --------------------------------------------------------------

    def _run(self) -> None:
        deleted, deleted_at, due = 0, 0.0, 1.0
        while not self._stop:
            self._wake.wait(min(1.0, due))
            self._wake.clear()
            due = 1.0
            try:
                # acknowledged rows go at most once a second (a write less per round; rows
                # left by a sudden stop are sent again and dropped by the floor)
                if self.acked > deleted and time.monotonic() - deleted_at >= PRUNE_S:
                    self.outbox.acknowledged(self.acked)
                    deleted, deleted_at = self.acked, time.monotonic()
                if self.connected:
                    due = self._publish_status()
                    self._drain()
            except Exception:  # the link must never take the table down
                log.exception("floor link")
                time.sleep(0.5)

    def _publish_status(self) -> float:
        """Publish the status if it changed (at most every :data:`STATUS_MIN_S`: the latest
        one then) or the heartbeat is due; the seconds until a held-back one is due."""
        st = self._status
        now = time.monotonic()
        if st is None or (st == self._status_sent and now - self._status_at < HEARTBEAT_S):
            return HEARTBEAT_S
        if now - self._status_at < STATUS_MIN_S:
            return STATUS_MIN_S - (now - self._status_at)
        # QoS 0: a snapshot, retained; a lost one is replaced by the next (or the heartbeat).
        # Compact JSON, as the records: the floor's edge takes it on its fast path
        # (firmware.floor.wire.repeated_keys; about half the cost of a spaced one)
        self.client.publish(topics.table_topic(self.table_id, topics.STATUS),
                            json.dumps({**st, "ts": self._status_ts, "sent": time.time()},
                                       separators=(",", ":")).encode(), qos=0, retain=True)
        self._status_sent = st
        self._status_at = now
        return HEARTBEAT_S

    def _drain(self) -> None:
        now = time.monotonic()
        if self._sent > self.acked and now - self._last_progress > RESEND_S:
            self._sent = self.acked
            self._last_progress = now
            self._new_window = True
        if self._new_window:  # a new connection (or a stall): nothing of before holds a place
            self._new_window = False
            self._flying = []
        while self.connected and not self._stop:
            self._flying = [i for i in self._flying if not _acked_by_broker(i)]
            if len(self._flying) >= WINDOW:
                return  # woken again by the broker's acknowledgements
            if self._sent >= self.outbox.newest:
                return  # nothing new (no query: the outbox knows its newest number)
            batch = _by_size(self.outbox.pending(self._sent, PER_PUBLISH))
            if not batch:
                return
            if self._sent == self.acked:
                self._last_progress = time.monotonic()
            self._flying.append(self.client.publish(
                topics.table_topic(self.table_id, topics.RECORDS),
                _wire(batch, self._sent), qos=1))
            self._sent = batch[-1].n
            self.publishes += 1


def _acked_by_broker(receipt: Any) -> bool:
    """Whether a publish no longer holds a place in the window: PUBACKed, or never queued
    (paho raises for that; the records go again from the floor's acknowledgement)."""
    try:
        return bool(receipt.is_published())
    except (ValueError, RuntimeError):
        return True


def _by_size(batch: list[OutMessage]) -> list[OutMessage]:
    """The first records of ``batch`` that fit :data:`PUBLISH_BYTES` (at least one)."""
    size = 0
    for i, m in enumerate(batch):
        size += min(len(m.payload), 200) + 24 if _oversize(m) else len(m.payload) + 24
        if size > PUBLISH_BYTES and i > 0:
            return batch[:i]
    return batch


def _oversize(m: OutMessage) -> bool:
    return len(m.payload) > topics.MAX_RECORD_BYTES


def _wire(batch: list[OutMessage], after: int) -> bytes:
    """One records message: the records after ``after`` in order, each too large a record
    replaced by a stub naming it (the journal keeps it), and — when this outbox no longer
    holds the messages right after ``after`` (acknowledged before and pruned, and now
    asked for again by a floor that lost them) — a ``gap`` record naming them first."""
    parts = []
    if batch[0].n > after + 1:
        parts.append(json.dumps({"kind": "gap", "n": batch[0].n - 1, "from_n": after + 1}))
    for m in batch:
        if _oversize(m):
            head = json.loads(m.payload)
            parts.append(json.dumps({"kind": "oversize", "n": m.n, "seq": head["seq"],
                                     "hash": head["hash"], "ts_ns": head["ts_ns"],
                                     "of": m.kind, "bytes": len(m.payload)}))
        else:
            parts.append(m.wire())
    return ("[" + ",".join(parts) + "]").encode("ascii")


def open_floor_link(settings: FloorSettings, table_id: str, software: dict[str, Any],
                    journal: Journal, on_command: Callable[[dict[str, Any]], None],
                    signature: Callable[[bytes], dict[str, Any]] | None = None) -> FloorLink:
    """The link of a table whose configuration names a floor broker: the outbox attaches
    to the journal now (before the table writes anything); :meth:`FloorLink.start`
    connects once the controller runs. ``software`` is what the pit shows of the table's
    program (version, configuration fingerprint, verified release); ``signature`` computes
    the seeded software signature (the command line hands it in)."""
    link = FloorLink(table_id, settings, journal, software=software, on_command=on_command,
                     signature=signature)
    for r in journal.records(kinds=["event"]):
        if r.code == EventCode.FLOOR_COMMAND and r.body.get("id"):
            link.verifier.remember(str(r.body["id"]))
    return link
