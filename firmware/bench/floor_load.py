"""Simulated tables for `etg floor load` and the floor benchmark: the table's own outbox and
floor link over a journal written as the controller writes it.

Each simulated table has its own journal file, :class:`~firmware.journal.outbox.Outbox` and
:class:`~firmware.floor.link.FloorLink` with its own client certificate — the code a real
table runs. Only the game is simulated: a round is a blackjack round record with random
stakes and results, its meter deltas and a status change, journaled as the controller
journals a real one, so the floor sees a table's genuine traffic shape (round, meters,
chain head, events, status). Its status says it is simulated: the pit hides it.

Each round's latency is measured on the table's own clock: from the journal commit that
wrote it to the arrival of the floor's acknowledgement that covers it — the floor sends
that only once its database holds the records.
"""

from __future__ import annotations

import random
import threading
import time
import zlib
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from etgcore.view import ControllerView, PublicView
from firmware.engine.game import Game
from firmware.engine.rules import load_rules
from firmware.floor import topics
from firmware.floor.certs import FLOOR_SERVICE, ca_paths, identity
from firmware.floor.link import FloorLink
from firmware.floor.settings import FloorSettings
from firmware.journal import Entry, EventCode, Journal
from firmware.journal.meters import credit_deltas, round_deltas

SEATS = 3


@dataclass(frozen=True)
class LoadOptions:
    floor_dir: Path
    host: str
    port: int
    tables: int
    rounds_per_s: float
    seconds: float
    prefix: str = "LOAD"
    processes: int = 0  # 0: one per :data:`TABLES_PER_PROCESS`
    journals: Path | None = None  # default: the floor directory's load/
    floor_pid: int | None = None
    broker_pid: int | None = None
    db_url: str | None = None
    #: light tables (their traffic built in memory: firmware.bench.floor_light)
    light: bool = False
    #: niceness added to the worker processes (the floor under test comes first)
    nice: int = 0


def load_ids(n: int, prefix: str = "LOAD") -> list[str]:
    return [f"{prefix}-{i:04d}" for i in range(1, n + 1)]


class SimTable:
    """One simulated table: a journal written like the controller writes it."""

    def __init__(self, table_id: str, floor_dir: Path, journal_dir: Path, host: str,
                 port: int, seed: int) -> None:
        self.table_id = table_id
        self.rng = random.Random(seed)
        self.journal = Journal(journal_dir / f"{table_id}.sqlite")
        me = identity(floor_dir, table_id)
        settings = FloorSettings(
            broker=f"{host}:{port}", ca=str(ca_paths(floor_dir).cert), cert=str(me.cert),
            key=str(me.key), command_cert=str(identity(floor_dir, FLOOR_SERVICE).cert))
        self.link = FloorLink(table_id, settings, self.journal,
                              software={"version": "load", "config": None, "release": None},
                              on_command=self._command, simulated=True,
                              on_acknowledged=self._acknowledged)
        self.round_no = sum(1 for _ in self.journal.records(kinds=["round"]))
        #: a blackjack table's public view as the controller publishes it (the link reads
        #: the variant, phase, round, tilt and failure); each status sets phase and round
        self._view: PublicView = {
            **Game(load_rules(), seats=SEATS).public_view(),
            "controller": ControllerView(pending_double=None, recall=False, failure=None,
                                         closed_seats=[],
                                         failure_kind=None, closed=False,
                                         deal_resumes=False),
        }
        self.rounds = 0
        #: (last outbox number of a commit, its monotonic time), waiting for the floor
        self._waiting: deque[tuple[int, float]] = deque()
        self._lock = threading.Lock()
        self.latencies: list[float] = []
        if self.journal.last_seq == 0:
            for seat in range(1, SEATS + 1):
                self.journal.append([Entry("event", {"seat": seat, "cents": 1_000_000},
                                           None, int(EventCode.CREDITS_IN))],
                                    credit_deltas(seat, 1_000_000))

    def _command(self, args: dict[str, Any]) -> None:
        code = EventCode.FLOOR_COMMAND_REFUSED if args.get("refusal") else \
            EventCode.FLOOR_COMMAND
        self.journal.append_one("event", {"reason": args.get("refusal"),
                                          **(args.get("command") or {})}, code=int(code))

    def _acknowledged(self, n: int) -> None:
        now = time.monotonic()
        with self._lock:
            while self._waiting and self._waiting[0][0] <= n:
                self.latencies.append(now - self._waiting.popleft()[1])

    def play_round(self) -> None:
        """One round: the dealing's status, the record with its meters, a shoe event
        now and then."""
        self._status("dealing")
        entries, deltas = self._round()
        self.journal.append(entries, deltas)
        committed = time.monotonic()
        with self._lock:
            self._waiting.append((self.link.outbox.newest, committed))
        self.rounds += 1
        self._status("settled")

    def play_rounds(self, k: int) -> None:
        """``k`` rounds journaled in one transaction (to fill an outbox quickly)."""
        entries: list[Entry] = []
        deltas: dict[tuple[str, int, str], int] = {}
        for _ in range(k):
            e, d = self._round()
            entries += e
            for key, v in d.items():
                deltas[key] = deltas.get(key, 0) + v
        self.journal.append(entries, deltas)
        self.rounds += k

    def _round(self) -> tuple[list[Entry], dict[tuple[str, int, str], int]]:
        self.round_no += 1
        r = self.rng
        stakes = {s: {"main": r.choice((500, 1000, 2500))} for s in range(1, SEATS + 1)}
        returns = {s: {"main": r.choice((0, 0, v["main"], 2 * v["main"]))}
                   for s, v in stakes.items()}
        record = {
            "final": self.round_no, "round": self.round_no, "state": "settled",
            "variant": "blackjack",
            "dealer": {"cards": ["KS", "7H"], "total": 17, "soft": False,
                       "hole_revealed": True, "blackjack": False, "bust": False},
            "seats": [{"seat": s, "net": returns[s]["main"] - stakes[s]["main"]}
                      for s in stakes],
            "bingo": None,
            "stakes": {str(k): v for k, v in stakes.items()},
            "returns": {str(k): v for k, v in returns.items()},
            "audit": [], "first_seq": None,
        }
        entries = [Entry("round", record, self.round_no)]
        if r.random() < 0.1:
            entries.append(Entry("event", {"cards_dealt": r.randint(1, 300)}, self.round_no,
                                 int(EventCode.SHOE_CUT_CARD)))
        return entries, round_deltas(stakes, returns, voided=False)

    def _status(self, phase: str) -> None:
        view: PublicView = {**self._view, "phase": phase, "round": self.round_no}
        self.link.offer_view(view, closed=False)

    def drained(self) -> bool:
        return self.link.acked >= self.link.outbox.last_n()

    def retire(self) -> None:
        """Clear this table's retained status at the broker and leave its presence
        offline (a load test leaves nothing behind that a restarted floor would show as
        playing). Presence is ``0``, not cleared: an empty presence message is a bad
        message to the floor (only ``0`` and ``1`` are presence), and a cleared one was
        an alarm on every load table after every run."""
        if self.link.connected:
            for kind, payload in ((topics.STATUS, b""), (topics.ONLINE, b"0")):
                self.link.client.publish(topics.table_topic(self.table_id, kind), payload,
                                         qos=1, retain=True).wait_for_publish(2.0)

    def close(self) -> None:
        self.link.stop(drain_s=0)
        self.journal.close()


def make_tables(ids: list[str], floor_dir: Path, journal_dir: Path, host: str,
                port: int) -> list[SimTable]:
    """Simulated tables (their certificates must exist: :func:`make_floor_certs`)."""
    journal_dir.mkdir(parents=True, exist_ok=True)
    return [SimTable(t, floor_dir, journal_dir, host, port, seed=zlib.crc32(t.encode()))
            for t in ids]


#: threads that play the simulated tables' rounds: each commit waits for its fsync (the
#: disk, not the CPU), and real tables commit in parallel, so one thread would fall behind
DRIVERS = 8


def drive(tables: list[SimTable], rounds_per_s: float, seconds: float,
          stop: threading.Event | None = None) -> int:
    """Play rounds on every table at ``rounds_per_s`` each, for ``seconds``, spread evenly
    over time and over :data:`DRIVERS` threads (a table always on the same one); returns
    the rounds played, which falls short of the rate when the machine cannot keep up."""
    groups = [tables[i::DRIVERS] for i in range(min(DRIVERS, len(tables)))]
    before = sum(t.rounds for t in tables)
    start = time.monotonic()
    threads = [threading.Thread(target=_pace, args=(g, rounds_per_s, start, seconds, stop),
                                name="floor-load", daemon=True) for g in groups]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(t.rounds for t in tables) - before


def _pace(tables: list[SimTable], rounds_per_s: float, start: float, seconds: float,
          stop: threading.Event | None) -> None:
    period = 1.0 / (rounds_per_s * len(tables))
    k = 0
    while time.monotonic() - start < seconds and not (stop and stop.is_set()):
        tables[k % len(tables)].play_round()
        k += 1
        delay = start + k * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def wait_drained(tables: list[SimTable], timeout: float) -> float | None:
    """Seconds until the floor acknowledged every table's whole outbox, else None."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if all(t.drained() for t in tables):
            return time.monotonic() - t0
        time.sleep(0.05)
    return None
