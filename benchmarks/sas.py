"""`make bench` figures of the SAS link, and its soak.

- **response time while the table plays and renders**: ``etg run --auto-play`` (window on
  SDL's dummy driver, so every frame is drawn; the simulated shoe at pace 0.02 s) with
  ``sas.port=pty``; a host on the logged pty polls every seat in turn as a slot system does
  (a general poll, then a meter long poll, 200 ms apart per machine) and times each answer
  from its ``os.write`` of the poll to the last byte of the answer read back. Then again
  with the table slowed (``ETG_SAS_SQUEEZE``): its process, every thread and child, pinned
  to one core that N busy loops at the same priority share, the host on another core;
  the table then has at most 1/(N+1) of a core (docs/sas.md: what that says of a Pi).
- **soak**: the same table killed with SIGKILL every few seconds and started again, the
  host polling throughout and sending transfers to the seats with fresh transaction ids
  (each one retried with the same id after every restart until the host has its final
  status). At the end, the table restarted without players: every meter the host reads
  equals ``etg meters``, every transfer the host was told succeeded is in the journal
  exactly once (its id once on the ledger), and the exceptions the host received are
  compared with the journal's own order.
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from benchmarks import CHECKOUT
from drivers.sas import codes as C
from drivers.sas.aft import parse_result, request_data
from drivers.sas.framing import from_bcd, long_poll
from drivers.sas.host import Host, HostPort, NoAnswer

SEATS = 3
ASSET = 46000


def _pinned(cpu: int | None) -> Callable[[], None] | None:
    """A child's start that pins it (and every thread and child it makes) to ``cpu``."""
    if cpu is None:
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


def _start(journal: Path, *extra: str,
           cpu: int | None = None) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware", "run", "--seats", str(SEATS), "--quiet",
         "--journal", str(journal), "--set", "sas.port=pty", *extra],
        cwd=CHECKOUT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=_pinned(cpu))
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    path = ""
    for line in proc.stderr:
        m = re.search(r"SAS link on (\S+)", line)
        if m:
            path = m.group(1)
        if "table ready" in line:
            break
        if time.monotonic() > deadline:
            break
    if not path:
        proc.kill()
        raise RuntimeError("the table did not log its SAS link")
    # keep draining stderr so the table never blocks on a full pipe; the link's own
    # figures (logged at its stop) are kept
    import threading

    def drain() -> None:
        for line in proc.stderr or ():
            if "SAS link stats" in line:
                LINK_STATS.append(line.split("SAS link stats: ", 1)[-1].strip())

    threading.Thread(target=drain, daemon=True).start()
    return proc, path


#: the table's own "SAS link stats" log lines, newest last (its answer times measured at
#: the link, and the link thread's CPU time per answer)
LINK_STATS: list[str] = []


def _timed(host: Host, poll: bytes, answer: int) -> float | None:
    host.port.drain()
    t0 = time.perf_counter()
    host.port.send(poll)
    got = host.port.read(answer, time.monotonic() + 1.0)
    return time.perf_counter() - t0 if len(got) == answer else None


def _burners(n: int, cpu: int) -> list[subprocess.Popen[bytes]]:
    """``n`` busy loops at the table's own priority, pinned to the table's CPU: the
    scheduler shares that core between them and every thread of the table."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             preexec_fn=_pinned(cpu)) for _ in range(n)]


def _latency(seconds: float, squeeze: int = 0,
             layout: str = "process") -> tuple[list[float], int]:
    """The host's timings; ``squeeze``: the table pinned to one CPU with that many busy
    loops sharing it (the host itself on another CPU, so that only the table is slowed;
    the link process inherits the pin); ``layout``: ``sas.layout``."""
    cpus = sorted(os.sched_getaffinity(0))
    cpu = cpus[-1] if squeeze else None
    with tempfile.TemporaryDirectory() as d:
        burn = _burners(squeeze, cpus[-1]) if squeeze else []
        mine = os.sched_getaffinity(0)
        if squeeze and len(cpus) > 1:
            os.sched_setaffinity(0, set(cpus[:-1]))
        try:
            proc, path = _start(Path(d) / "j.sqlite", "--auto-play", "--pace", "0.02",
                                "--set", f"sas.layout={layout}", cpu=cpu)
        except BaseException:
            _stop_burners(burn, mine)
            raise
        host = Host(HostPort.open(path), timeout=1.0)
        lat: list[float] = []
        missed = 0
        instrument = _instrument(True)
        try:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                for a in range(1, SEATS + 1):
                    for poll, n in ((bytes((0x80 | a,)), 1), (long_poll(a, 0x1A, crc=False), 8)):
                        t = _timed(host, poll, n)
                        if t is None:
                            missed += 1
                        else:
                            lat.append(t)
                    time.sleep(0.2 / SEATS)
        finally:
            _instrument(False)
            host.port.close()
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
            _stop_burners(burn, mine)
            INSTRUMENT[:] = [instrument]
            for _ in range(20):  # the drain thread has the table's last lines a moment later
                if LINK_STATS:
                    break
                time.sleep(0.05)
        return lat, missed


#: how the measuring host ran (its priority), for the figures' line
INSTRUMENT: list[str] = []


def _instrument(on: bool) -> str:
    """The measuring host stands for a slot system on a machine of its own: while it
    polls it runs at a real-time priority above the link's (SCHED_FIFO 20, not inherited
    by children), so its own wake-up on this loaded machine is not what is measured.
    Without the privilege it runs as it is (and says so)."""
    try:
        if on:
            os.sched_setscheduler(0, os.SCHED_FIFO | getattr(os, "SCHED_RESET_ON_FORK", 0),
                                  os.sched_param(20))
            return "host SCHED_FIFO 20"
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        return "host normal"
    except (OSError, AttributeError):
        return "host normal (no privilege)"


def _stop_burners(burn: list[subprocess.Popen[bytes]], affinity: set[int]) -> None:
    for b in burn:
        b.kill()
        b.wait(5)
    os.sched_setaffinity(0, affinity)


def _figures(lat: list[float], missed: int) -> str:
    ms = sorted(x * 1000 for x in lat)
    if not ms:
        return f"no answer at all, missed {missed}"
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    p999 = ms[min(len(ms) - 1, int(len(ms) * 0.999))]
    link = f"; the table's link: {LINK_STATS[-1]}" if LINK_STATS else ""
    link += f"; {INSTRUMENT[-1]}" if INSTRUMENT else ""
    return (f"{len(ms)} answers: p50 {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, p999 "
            f"{p999:.2f} ms, max {ms[-1]:.2f} ms, missed {missed} (the protocol's deadline: "
            f"20 ms; {'met' if p99 < 20 else 'NOT met'} at p99){link}")


def _final_status(host: Host, a: int) -> dict[str, object]:
    for _ in range(50):
        res = parse_result(host.long(a, 0x72, b"\xff\x00", variable=True))
        if res["status"] != C.AFT_PENDING:
            return res
        time.sleep(0.05)
    return res


def _soak(cycles: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as d:
        journal = Path(d) / "j.sqlite"
        told_ok: dict[str, int] = {}  # txid -> cents the host was told succeeded
        open_tx: dict[str, tuple[int, int]] = {}  # txid -> (address, cents) unresolved
        received: dict[int, list[int]] = {a: [] for a in range(1, SEATS + 1)}
        n_tx = 0
        for cycle in range(cycles):
            proc, path = _start(journal, "--auto-play", "--pace", "0.02")
            host = Host(HostPort.open(path), timeout=1.0)
            try:
                for txid, (a, cents) in list(open_tx.items()):  # retry after the restart
                    try:
                        res = parse_result(host.long(a, 0x72, request_data(
                            C.AFT_IN_HOUSE_TO_MACHINE, cents, ASSET + a, txid.encode()),
                            variable=True))
                        if res["status"] == C.AFT_PENDING:
                            res = _final_status(host, a)
                        if res["status"] == C.AFT_FULL_SUCCESS and res["txid"] == txid:
                            told_ok[txid] = cents
                            del open_tx[txid]
                    except NoAnswer:
                        pass
                end = time.monotonic() + 3.0 + (cycle % 3)
                while time.monotonic() < end:
                    for a in range(1, SEATS + 1):
                        try:
                            code = host.general_poll(a)
                            if code not in (None, C.NO_EXCEPTION):
                                received[a].append(int(code))
                            n_tx += 1
                            txid = f"S{cycle}-{n_tx}"
                            open_tx[txid] = (a, 100 + n_tx)
                            host.port.send(long_poll(a, 0x72, request_data(
                                C.AFT_IN_HOUSE_TO_MACHINE, 100 + n_tx, ASSET + a,
                                txid.encode()), variable=True))
                            host.read_answer(a, 0x72, None)
                            res = _final_status(host, a)
                            if res["status"] == C.AFT_FULL_SUCCESS and res["txid"] == txid:
                                told_ok[txid] = 100 + n_tx
                                del open_tx[txid]
                        except NoAnswer:
                            pass
                        time.sleep(0.05)
            finally:
                host.port.close()
                proc.send_signal(signal.SIGKILL)
                proc.wait(20)
        return _verify(journal, told_ok, open_tx, received)


def _verify(journal: Path, told_ok: dict[str, int], open_tx: dict[str, tuple[int, int]],
            received: dict[int, list[int]]) -> dict[str, object]:
    proc, path = _start(journal)  # no players: the meters stand still
    host = Host(HostPort.open(path), timeout=1.0)
    try:
        for txid, (a, cents) in list(open_tx.items()):
            res = parse_result(host.long(a, 0x72, request_data(
                C.AFT_IN_HOUSE_TO_MACHINE, cents, ASSET + a, txid.encode()), variable=True))
            if res["status"] == C.AFT_PENDING:
                res = _final_status(host, a)
            if res["status"] == C.AFT_FULL_SUCCESS:
                told_ok[txid] = cents
        meters = json.loads(subprocess.run(
            [sys.executable, "-m", "firmware", "meters", "--json", "--journal", str(journal)],
            cwd=CHECKOUT, capture_output=True, text=True, check=True).stdout)
        mismatch = 0
        for s in meters["seats"]:
            a = int(s["seat"])
            read = {"credits": from_bcd(host.long(a, 0x1A, crc=False, answer=8)),
                    "wagered": from_bcd(host.long(a, 0x11, crc=False, answer=8)),
                    "paid": from_bcd(host.long(a, 0x12, crc=False, answer=8)),
                    "games_played": from_bcd(host.long(a, 0x15, crc=False, answer=8))}
            mismatch += sum(read[k] != s[k] % 10**8 for k in read)
    finally:
        host.port.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
    from firmware.journal import EventCode, open_existing

    j = open_existing(journal)
    ids = [str(r.body["sas_txid"]) for r in j.records(kinds=["event"])
           if r.code == int(EventCode.CREDITS_IN) and r.body.get("sas_txid")]
    applied = {bytes.fromhex(t).decode() for t in ids}
    in_order, extra = _exception_order(journal, received)
    return {"transfers_told_ok": len(told_ok), "applied": len(ids),
            "applied_twice": len(ids) - len(applied),
            "told_ok_missing": len(set(told_ok) - applied),
            "applied_not_told": len(applied - set(told_ok)),
            "meter_mismatches": mismatch,
            "exceptions_received": sum(len(v) for v in received.values()),
            "exceptions_in_the_journal_order": in_order,
            "exceptions_received_twice": extra}


def _exception_order(journal: Path, received: dict[int, list[int]]) -> tuple[bool, int]:
    """Whether each machine's received exceptions equal, one for one and in order, the
    takes the journal records (the HIL bench's and the soak's check), and how many were
    received more often than taken (a repeat after a kill -9)."""
    from firmware.bench.soak_sas import taken_exceptions

    want = taken_exceptions(journal, list(received))
    same = all(got == want.get(a, []) for a, got in received.items())
    extra = sum(max(0, len(got) - len(want.get(a, []))) for a, got in received.items())
    return same, extra


#: both layouts, side by side in every leg
LAYOUTS = ("thread", "process")


def _squeezes() -> list[int]:
    """``ETG_SAS_SQUEEZE``: busy loops beside the table's core per extra leg ("1,3";
    default "3"; "" none): the table slowed as a slower CPU would slow it, measured."""
    raw = os.environ.get("ETG_SAS_SQUEEZE", "3")
    return [int(x) for x in raw.split(",") if x.strip().isdigit() and 0 < int(x) <= 8]


def sas_benchmark(seconds: float = 20.0, cycles: int = 6) -> Iterator[str]:
    yield ("what: SAS link response time (poll written to the last answer byte read) "
           "while the table plays and renders; a soak with kill -9 and host transfers")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    yield f"machine load average (1 min) at start: {load:.1f} on {os.cpu_count()} cores"
    seconds = float(os.environ.get("ETG_SAS_BENCH_S", seconds))
    for layout in LAYOUTS:  # the thread layout is the yardstick, in the same run
        LINK_STATS.clear()
        lat, missed = _latency(seconds, 0, layout)
        yield (f"sas.layout={layout}: {seconds:g} s of play, {SEATS} seats, the table on every "
               f"core: {_figures(lat, missed)}")
    for n in _squeezes():
        for layout in LAYOUTS:
            LINK_STATS.clear()
            lat, missed = _latency(seconds, n, layout)
            yield (f"sas.layout={layout}: {seconds:g} s of play, the table's processes pinned "
                   f"to one core shared with {n} busy loop(s) at their priority (at most "
                   f"1/{n + 1} of a core for the table): {_figures(lat, missed)}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    yield f"machine load average (1 min) after the timing legs: {load:.1f}"
    res = _soak(cycles)
    yield (f"soak, {cycles} kill -9 cycles: " + ", ".join(f"{k} {v}" for k, v in res.items()))
