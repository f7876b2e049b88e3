"""A slot system's host polling every seat while a bench plays, kills and restarts the
table: ``etg bench soak --sas-host`` and ``etg bench run --mode hil --sas-host``
(docs/sas.md).

After each start it opens the pty the table logged (``SAS link on PATH``) and, on its own
thread, polls every seat at a real host's pace (a general poll and a meter poll per
machine, 200 ms apart per machine), timing every answer and keeping every exception it
is given, in order; in the soak it also sends, every few polls, a transfer to a seat with
a fresh transaction id. A transfer whose final status it did not get before a kill is
sent again with the same id after the restart. The bench may take the line for a moment
(:meth:`SoakHost.quiet`: the poll thread waits) to read every meter of every seat at an
instant the table stands still, or to send a transfer of its own.

The checks (:meth:`SoakHost.checks`): answers within the protocol's 20 ms at p99; every
meter the host read equal to the journal's (what ``etg meters`` prints) at that instant;
every exception received once and in the journal's order (the queue's takes); every
transfer the host was told succeeded in the journal exactly once, no transaction id
applied twice.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from drivers.sas import codes as C
from drivers.sas.aft import parse_result, request_data
from drivers.sas.framing import from_bcd, long_poll
from drivers.sas.host import Host, HostPort, NoAnswer
from drivers.sas.ports import SasPortError
from firmware.bench.soak_checks import Check

ASSET_BASE = 46000  # sas.asset_base's default
PACE_S = 0.2  # per machine
DEADLINE_MS = 20.0

#: one-meter long polls read at a still instant, and the journal meter each must equal
METER_POLLS = {0x10: "credits_out", 0x11: "wagered", 0x12: "paid", 0x13: "credits_in",
               0x15: "games_played", 0x1A: "credits"}
_IN, _OUT, _TAKEN = 800, 801, 1100  # EventCode CREDITS_IN / CREDITS_OUT / SAS_EXCEPTION_TAKEN


class SoakHost:
    def __init__(self, seats: int, log_path: Path, transfers: bool = True,
                 journal: Path | None = None) -> None:
        self.seats = seats
        #: with a journal: every 1A the poll thread reads is held to the journal's credits
        #: meter read just before the poll and just after its answer (the table plays on:
        #: equal to one of the two)
        self.journal = journal
        self.transfers = transfers  # False: no transfers of its own on the poll thread
        self.log_path = log_path
        self.latencies: list[float] = []
        self.missed = 0
        self.told_ok: set[str] = set()
        self.open_tx: dict[str, tuple[int, int, bool]] = {}  # txid -> (address, cents, in)
        self.exceptions = 0
        #: every exception each machine answered a general poll with, in order
        self.received: dict[int, list[int]] = {a: [] for a in range(1, seats + 1)}
        self.meter_reads = 0
        self.meter_mismatches: list[str] = []
        self._n = 0
        self._stop = threading.Event()
        self._line = threading.Lock()  # one poll (and its answer) on the line at a time
        self._thread: threading.Thread | None = None
        self._host: Host | None = None
        self._seen_lines = 0

    def attach(self) -> None:
        """After a start: the newest ``SAS link on`` line of the log, a host on it."""
        path = ""
        deadline = time.monotonic() + 10
        while not path and time.monotonic() < deadline:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
            for line in lines[self._seen_lines:]:
                m = re.search(r"SAS link on (\S+)", line)
                if m:
                    path = m.group(1)
            if not path:
                time.sleep(0.05)
            else:
                self._seen_lines = len(lines)
        if not path:
            raise SasPortError("the table did not log its SAS link")
        self._host = Host(HostPort.open(path), timeout=0.5)
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="soak-sas-host", daemon=True)
        self._thread.start()

    def detach(self) -> None:
        """Stop polling after the poll in hand (its answer read, so never mid-message)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        if self._host is not None:
            self._host.port.close()
            self._host = None

    @contextlib.contextmanager
    def quiet(self) -> Iterator[Host]:
        """The line for the bench alone while the block runs (the poll thread waits)."""
        if self._host is None:
            raise SasPortError("the host is not attached")
        with self._line:
            yield self._host

    def _run(self) -> None:
        host = self._host
        assert host is not None
        self.resolve_open()  # again, after the restart
        while not self._stop.is_set():
            for a in range(1, self.seats + 1):
                if self._stop.is_set():
                    return
                with self._line:
                    self._poll(host, a)
                self._stop.wait(PACE_S / self.seats)

    def _poll(self, host: Host, a: int) -> None:
        try:
            host.port.drain()
            t0 = time.perf_counter()
            host.port.send(bytes((0x80 | a,)))
            got = host.port.read(1, time.monotonic() + 0.5)
            if got:
                self.latencies.append((time.perf_counter() - t0) * 1000)
                if got != b"\x00":
                    self.exceptions += 1
                    self.received[a].append(got[0])
            else:
                self.missed += 1
            before = self._credits(a)
            read = from_bcd(host.long(a, 0x1A, crc=False, answer=8))  # also the ack
            if before is not None:
                after = self._credits(a)
                self.meter_reads += 1
                # neither the journal's before the poll nor after its answer: a mismatch
                # (no read again: a commit pending is never answered from the old figure)
                if read not in (before, after):
                    self.meter_mismatches.append(
                        f"seat {a} credits: host read {read}, etg meters {before} before "
                        f"the poll and {after} after its answer")
            self._n += 1
            if self.transfers and self._n % 25 == 0:
                self.transfer(host, a, 100 + self._n, f"SOAK{self._n}")
        except (NoAnswer, OSError):
            self.missed += 1

    def _credits(self, a: int) -> int | None:
        if self.journal is None:
            return None
        return _seat_meters(self.journal).get(("credits", a), 0) % 10**8

    def resolve_open(self) -> None:
        """Every transfer without a final answer sent again with its id, until final."""
        if self._host is None:
            return
        with self._line:
            for txid, (a, cents, to_machine) in list(self.open_tx.items()):
                self.transfer(self._host, a, cents, txid, to_machine)

    def send_only(self, a: int, cents: int, txid: str, to_machine: bool = True) -> None:
        """A transfer request and nothing more (the bench kills the table next): open
        until a later :meth:`resolve_open` hears its final status."""
        with self.quiet() as host:
            self.open_tx[txid] = (a, cents, to_machine)
            host.port.drain()
            host.port.send(_request(a, cents, txid, to_machine))
            with contextlib.suppress(NoAnswer, OSError):
                host.read_answer(a, 0x72, None)

    def transfer(self, host: Host, a: int, cents: int, txid: str,
                 to_machine: bool = True) -> int | None:
        """Send, interrogate until final; the final status (None: none came)."""
        self.open_tx[txid] = (a, cents, to_machine)
        try:
            host.port.drain()
            host.port.send(_request(a, cents, txid, to_machine))
            res = parse_result(host.read_answer(a, 0x72, None))
            for _ in range(40):
                if res["status"] != C.AFT_PENDING or self._stop.is_set():
                    break
                time.sleep(0.05)
                res = parse_result(host.long(a, 0x72, b"\xff\x00", variable=True))
        except (NoAnswer, OSError):
            return None
        if res.get("txid") != txid or res["status"] == C.AFT_PENDING:
            return None
        del self.open_tx[txid]
        if res["status"] == C.AFT_FULL_SUCCESS:
            self.told_ok.add(txid)
        return int(str(res["status"]))

    def read_meters(self, journal: Path) -> None:
        """Every meter poll of every seat against the journal's meters, read at an
        instant the table stands still (between a scenario's rounds): equal, or a
        mismatch the checks report."""
        with self.quiet() as host:
            want = _seat_meters(journal)
            for a in range(1, self.seats + 1):
                for cmd, name in METER_POLLS.items():
                    try:
                        got = from_bcd(host.long(a, cmd, crc=False, answer=8))
                    except (NoAnswer, OSError) as exc:
                        self.meter_mismatches.append(f"seat {a} {name}: {exc}")
                        continue
                    self.meter_reads += 1
                    exp = want.get((name, a), 0) % 10**8
                    if got != exp:
                        self.meter_mismatches.append(
                            f"seat {a} {name}: host read {got}, etg meters {exp}")
            if _seat_meters(journal) != want:
                self.meter_mismatches.append("the meters moved while the host read them "
                                             "(the bench's still instant was not still)")

    def timing_check(self, deadline_ms: float = DEADLINE_MS) -> Check:
        """Answers within the protocol's deadline at p99 (every general poll timed)."""
        lat = sorted(self.latencies)
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("inf")
        p999 = lat[min(len(lat) - 1, int(0.999 * len(lat)))] if lat else float("inf")
        return Check(f"SAS answers within {deadline_ms:g} ms at p99",
                     bool(lat) and p99 < deadline_ms,
                     f"{len(lat)} general polls answered, p99 {p99:.2f} ms, p999 "
                     f"{p999:.2f} ms, max "
                     f"{lat[-1] if lat else 0:.2f} ms, {self.missed} missed (across "
                     "kills and restarts)")

    def meter_check(self) -> Check:
        bad = self.meter_mismatches
        return Check("SAS meters equal etg meters", bool(self.meter_reads) and not bad,
                     f"{self.meter_reads} meters read, "
                     f"{len(bad)} different" + (f": {'; '.join(bad[:3])}" if bad else ""))

    def transfer_check(self, journal: Path) -> Check:
        rows = _events(journal, (_IN, _OUT))
        applied = [bytes.fromhex(t).decode() for _c, b in rows
                   if isinstance(t := b.get("sas_txid"), str)]
        twice = len(applied) - len(set(applied))
        missing = self.told_ok - set(applied)
        return Check("SAS transfers exactly once", not twice and not missing,
                     f"{len(self.told_ok)} the host was told succeeded, {len(applied)} "
                     f"applied, {twice} twice, {len(missing)} told but not applied, "
                     f"{len(self.open_tx)} without a final answer")

    def exception_check(self, journal: Path) -> Check:
        """Each machine's exceptions as received equal, one for one, the ones the
        journal says its host took, in the journal's order."""
        want = taken_exceptions(journal, list(self.received))
        bad = []
        for a, got in self.received.items():
            if got != want.get(a, []):
                bad.append(f"address {a}: received {_hex(got)}, the journal's takes "
                           f"{_hex(want.get(a, []))}")
        n = sum(len(v) for v in self.received.values())
        return Check("SAS exceptions once and in order", not bad,
                     f"{n} exceptions received" + (f"; {'; '.join(bad[:2])}" if bad else
                                                  ", each once, in the journal's order"))

    def checks(self, journal: Path, deadline_ms: float = DEADLINE_MS) -> list[Check]:
        out = [self.timing_check(deadline_ms), self.transfer_check(journal),
               self.exception_check(journal)]
        if self.meter_reads or self.meter_mismatches:
            out.append(self.meter_check())
        return out


def _request(a: int, cents: int, txid: str, to_machine: bool) -> bytes:
    kind = C.AFT_IN_HOUSE_TO_MACHINE if to_machine else C.AFT_IN_HOUSE_TO_HOST
    return long_poll(a, 0x72, request_data(kind, cents, ASSET_BASE + a, txid.encode()),
                     variable=True)


def _hex(codes: list[int]) -> str:
    return " ".join(f"{c:02X}" for c in codes[:12]) + (" ..." if len(codes) > 12 else "")


def _db(journal: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=10)


def _seat_meters(journal: Path) -> dict[tuple[str, int], int]:
    db = _db(journal)
    try:
        rows = db.execute("SELECT name, seat, value FROM meters WHERE seat > 0 AND "
                          "(wager IS NULL OR wager = '')").fetchall()
    finally:
        db.close()
    return {(n, int(s)): int(v) for n, s, v in rows}


def _events(journal: Path, codes: tuple[int, ...]) -> list[tuple[int, dict[str, object]]]:
    db = _db(journal)
    try:
        rows = db.execute(f"SELECT code, body FROM records WHERE kind='event' AND code IN "
                          f"({','.join('?' * len(codes))}) ORDER BY seq", codes).fetchall()
    finally:
        db.close()
    return [(int(c), json.loads(b)) for c, b in rows]


def taken_exceptions(journal: Path, addresses: list[int]) -> dict[int, list[int]]:
    """Per address, the exception codes its host took, in the order of the takes (the
    journal's ``SAS_EXCEPTION_TAKEN`` records, each naming the record it took)."""
    from firmware.journal import open_existing
    from firmware.table.sas.board import SasBoard

    j = open_existing(journal)
    try:
        board = SasBoard(j, {a: a for a in addresses}, ASSET_BASE, 0, record_history=True)
        codes = {(a, seq): code for a, seq, code in board.history or ()}
    finally:
        j.close()
    out: dict[int, list[int]] = {a: [] for a in addresses}
    for _c, body in _events(journal, (_TAKEN,)):
        a, seq = body.get("address"), body.get("seq")
        if isinstance(a, int) and isinstance(seq, int) and (a, seq) in codes and a in out:
            out[a].append(codes[(a, seq)])
    return out
