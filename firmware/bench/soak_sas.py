"""`etg bench soak --sas-host`: a slot system's host polling every seat while the soak
plays, kills and restarts the table (docs/sas.md).

After each start it opens the pty the table logged (``SAS link on PATH``) and, on its own
thread, polls every seat at a real host's pace (a general poll and a meter poll per
machine, 200 ms apart per machine), timing every answer, and every few rounds sends a
transfer to a seat with a fresh transaction id; a transfer whose final status it did not
get before a kill is sent again with the same id after the restart. The checks: answers
within the protocol's 20 ms at p99; every transfer the host was told succeeded is in the
journal exactly once; no transaction id applied twice.
"""

from __future__ import annotations

import re
import sqlite3
import threading
import time
from pathlib import Path

from drivers.sas import codes as C
from drivers.sas.aft import parse_result, request_data
from drivers.sas.framing import long_poll
from drivers.sas.host import Host, HostPort, NoAnswer
from drivers.sas.ports import SasPortError
from firmware.bench.soak_checks import Check

ASSET_BASE = 46000  # sas.asset_base's default
PACE_S = 0.2  # per machine
DEADLINE_MS = 20.0


class SoakHost:
    def __init__(self, seats: int, log_path: Path, transfers: bool = True) -> None:
        self.seats = seats
        self.transfers = transfers  # False: polls only (a scenario's credits stay its own)
        self.log_path = log_path
        self.latencies: list[float] = []
        self.missed = 0
        self.told_ok: set[str] = set()
        self.open_tx: dict[str, tuple[int, int]] = {}
        self.exceptions = 0
        self._n = 0
        self._stop = threading.Event()
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
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        if self._host is not None:
            self._host.port.close()
            self._host = None

    def _run(self) -> None:
        host = self._host
        assert host is not None
        for txid, (a, cents) in list(self.open_tx.items()):  # again, after the restart
            self._transfer(host, a, cents, txid)
        while not self._stop.is_set():
            for a in range(1, self.seats + 1):
                if self._stop.is_set():
                    return
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
                self.exceptions += got != b"\x00"
            else:
                self.missed += 1
            host.long(a, 0x1A, crc=False, answer=8)
            self._n += 1
            if self.transfers and self._n % 25 == 0:
                self._transfer(host, a, 100 + self._n, f"SOAK{self._n}")
        except (NoAnswer, OSError):
            self.missed += 1

    def _transfer(self, host: Host, a: int, cents: int, txid: str) -> None:
        self.open_tx[txid] = (a, cents)
        try:
            host.port.drain()
            host.port.send(long_poll(a, 0x72, request_data(
                C.AFT_IN_HOUSE_TO_MACHINE, cents, ASSET_BASE + a, txid.encode()),
                variable=True))
            res = parse_result(host.read_answer(a, 0x72, None))
            for _ in range(40):
                if res["status"] != C.AFT_PENDING or self._stop.is_set():
                    break
                time.sleep(0.05)
                res = parse_result(host.long(a, 0x72, b"\xff\x00", variable=True))
        except (NoAnswer, OSError):
            return
        if res.get("txid") == txid and res["status"] != C.AFT_PENDING:
            del self.open_tx[txid]
            if res["status"] == C.AFT_FULL_SUCCESS:
                self.told_ok.add(txid)

    def timing_check(self, deadline_ms: float = DEADLINE_MS) -> Check:
        """Answers within the protocol's deadline at p99 (every general poll timed)."""
        lat = sorted(self.latencies)
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("inf")
        return Check(f"SAS answers within {deadline_ms:g} ms at p99",
                     bool(lat) and p99 < deadline_ms,
                     f"{len(lat)} general polls answered, p99 {p99:.2f} ms, max "
                     f"{lat[-1] if lat else 0:.2f} ms, {self.missed} missed (across "
                     "kills and restarts)")

    def checks(self, journal: Path) -> list[Check]:
        timing = self.timing_check()
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT body FROM records WHERE kind='event' AND code=800"
                              ).fetchall()
        finally:
            db.close()
        import json

        ids = [json.loads(b).get("sas_txid") for (b,) in rows]
        applied = [bytes.fromhex(t).decode() for t in ids if isinstance(t, str)]
        twice = len(applied) - len(set(applied))
        missing = self.told_ok - set(applied)
        once = Check("SAS transfers exactly once", not twice and not missing,
                     f"{len(self.told_ok)} the host was told succeeded, {len(applied)} "
                     f"applied, {twice} twice, {len(missing)} told but not applied, "
                     f"{len(self.open_tx)} without a final answer")
        return [timing, once]
