"""`make bench` figures of the table service.

- **card to screen** (:mod:`benchmarks.card_to_screen`): from ``os.write`` of a ``CRD``
  frame's last byte on a real pty to the end of the first frame whose snapshot shows
  the card (its dirty rectangles presented), with the real driver, controller and UI
  loop, and the same card's time at each step on the way.
- **journal commit**: ``Journal.append_one`` of a typical input record (WAL,
  ``synchronous=FULL``: one fsync each) on the filesystem of the working directory: the
  keyed chain with its deferred head file (the commit a card waits for, then the head's
  ``fdatasync`` after the view), the unkeyed chain without a head file, and a bare
  ``fdatasync`` of the same disk, taking turns record by record.
- **idle CPU, resident memory, start to ready**: ``etg run --headless`` with the shoe
  simulator on a pty and the simulated panel, nothing happening; CPU from /proc over 10 s.
  Start to ready is timed as an installed table starts: this checkout built into a
  signed release (a throwaway key), unpacked as the installer does, run with ``-B`` from
  that tree, reading the bytecode the release ships; the checkout's own start beside it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import tty
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks import CHECKOUT

#: starts timed from the release tree (each also idles a few seconds)
STARTS = 5


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


#: the record a card's commit writes in the journal benchmarks
_CARD = {"input": {"type": "card", "card": "TD"}, "source": "shoe"}


def _disk_sync(fd: int) -> None:
    """The disk alone: 256 bytes written in place and synced, as a head slot is."""
    os.pwrite(fd, b"h" * 256, 0)
    os.fdatasync(fd)


def _journal_commit(n: int = 1000) -> dict[str, list[float]]:
    """Commit latencies measured side by side, taking turns record by record so load on
    the machine falls on all alike: the keyed chain as the table runs it (``commit``:
    what a card waits for; ``head``: the deferred head write after the view), the
    unkeyed chain without a head file (the journal before issue 18), and the disk alone
    (``disk``: pwrite of 256 bytes + fdatasync in the same directory)."""
    from firmware.journal import Journal

    times: dict[str, list[float]] = {k: [] for k in ("commit", "head", "plain", "disk")}
    with tempfile.TemporaryDirectory(dir=".") as d:
        keyed = Journal(Path(d) / "keyed.sqlite", os.urandom(32))
        keyed.defer_head = True
        plain = Journal(Path(d) / "plain.sqlite", None, head_file=False)
        fd = os.open(Path(d) / "disk", os.O_RDWR | os.O_CREAT, 0o600)
        steps = (("commit", lambda: keyed.append_one("input", _CARD, round_no=1)),
                 ("head", keyed.sync_head),
                 ("plain", lambda: plain.append_one("input", _CARD, round_no=1)),
                 ("disk", lambda: _disk_sync(fd)))
        for _ in range(n):
            for name, step in steps:
                t0 = time.perf_counter()
                step()
                times[name].append(time.perf_counter() - t0)
        os.close(fd)
        keyed.close()
        plain.close()
    return times


def _after_sleep(pause_s: float = 0.05, n: int = 100) -> dict[str, list[float]]:
    """The card's commit and the disk's sync alone again, each after ``pause_s`` asleep
    as a card comes to the table, not back to back as in :func:`_journal_commit`."""
    from firmware.journal import Journal

    times: dict[str, list[float]] = {"commit": [], "disk": []}
    with tempfile.TemporaryDirectory(dir=".") as d:
        keyed = Journal(Path(d) / "keyed.sqlite", os.urandom(32))
        keyed.defer_head = True
        fd = os.open(Path(d) / "disk", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            for _ in range(n):
                time.sleep(pause_s)
                t0 = time.perf_counter()
                keyed.append_one("input", _CARD, round_no=1)
                times["commit"].append(time.perf_counter() - t0)
                keyed.sync_head()
                time.sleep(pause_s)
                t0 = time.perf_counter()
                _disk_sync(fd)
                times["disk"].append(time.perf_counter() - t0)
        finally:
            os.close(fd)
            keyed.close()
    return times


def _dist(xs: list[float]) -> str:
    ms = [x * 1000 for x in xs]
    return (f"p50 {statistics.median(ms):.2f}, p90 {_pct(ms, 0.9):.2f}, p99 "
            f"{_pct(ms, 0.99):.2f}, max {max(ms):.2f} ms")


def _proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
            out += [int(c) for c in f.read().split()]
    return out


HEAVY = ("numpy", "scipy", "matplotlib", "numba", "dask")


def _heavy_loaded(pid: int) -> list[str]:
    """Which of the lab's and the math's libraries the process has mapped (their
    compiled extensions show in /proc/PID/maps as soon as they are imported)."""
    with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as f:
        maps = f.read()
    return [name for name in HEAVY if f"/{name}/" in maps or f"/{name}." in maps]


@dataclass
class IdleFigures:
    table_cpu: float  # % of one core, the table process
    shoe_sim_cpu: float  # % of one core, the shoe simulator process (bench only)
    rss: float  # MiB, the table process
    ready: float  # s, exec to the 'table ready' line
    ready_cpu: float  # CPU s of the table process by then (less disturbed by other load)
    internal: float  # s, inside the service (after the imports)
    heavy: list[str]


def _idle(seconds: float = 10.0, shoe: str = "sim", release: Path | None = None
          ) -> IdleFigures:
    """``shoe``: "sim" (the simulator process on a pty) or a port this bench holds (a
    silent pty: the table's own start, as with a real shoe on USB). ``release``: run the
    program from this unpacked release tree, as the installed launcher does (``-B``, the
    tree first on the path, no bytecode cache elsewhere), instead of from the checkout."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, SDL_VIDEODRIVER="dummy")
        env.pop("DISPLAY", None)
        flags: list[str] = []
        if release is not None:
            env.pop("PYTHONPYCACHEPREFIX", None)  # else the shipped bytecode is not looked at
            flags = ["-B"]
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, *flags, "-m", "firmware", "run", "--headless", "--journal",
             f"{d}/j.sqlite", "--shoe", shoe, "--panel", "sim"],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
            cwd=release)
        assert proc.stderr is not None
        ready = ready_cpu = float("nan")
        for line in proc.stderr:
            if "table ready" in line:
                ready = time.monotonic() - t0
                ready_cpu = _proc_cpu(proc.pid)
                break
        time.sleep(3)
        kids = _children(proc.pid)
        c0, k0, w0 = _proc_cpu(proc.pid), sum(map(_proc_cpu, kids)), time.monotonic()
        time.sleep(seconds)
        c1, k1, w1 = _proc_cpu(proc.pid), sum(map(_proc_cpu, kids)), time.monotonic()
        rss = _rss_mib(proc.pid)
        heavy = _heavy_loaded(proc.pid)
        proc.terminate()
        proc.wait(10)
        from firmware.journal import Journal

        internal = float(Journal(f"{d}/j.sqlite").info("last_ready_s") or "nan")
    wall = w1 - w0
    return IdleFigures((c1 - c0) / wall * 100, (k1 - k0) / wall * 100, rss, ready,
                       ready_cpu, internal, heavy)


def _fingerprint_us() -> float:
    """The hashing a start journals (CONFIG_IN_FORCE), on the built-in configuration."""
    from deploy.fingerprint import fingerprint
    from firmware.config import load_config

    cfg = load_config(None)
    rules = {"decks": 6, "dealer_hits_soft_17": False}
    best = float("inf")
    for _ in range(50):
        t0 = time.perf_counter()
        fingerprint(cfg, rules)
        best = min(best, time.perf_counter() - t0)
    return best * 1e6


def _release_tree(work: Path) -> Path:
    """This checkout built into a signed release (a throwaway key) and unpacked as the
    installer unpacks it: the tree an installed table runs, bytecode included."""
    from deploy import signing
    from deploy.bundle import build_bundle, verify_bundle
    from deploy.unpack import extract

    key, pub, _ = signing.generate(work / "bench")
    built = build_bundle(CHECKOUT, key, work / "bench.etgrel")
    tree, _status = extract(verify_bundle(built.path, pub).contents, work / "releases")
    return tree


def _bytecode_state() -> str:
    """Whether the starts above compiled the program from source (no .pyc may be written:
    PYTHONDONTWRITEBYTECODE, or a release's launcher with -B) or read cached bytecode."""
    cached = sys.pycache_prefix is not None or any(
        (Path(__file__).resolve().parent / "__pycache__").glob(f"{Path(__file__).stem}.*.pyc"))
    if sys.dont_write_bytecode and not cached:
        return "the program compiled from source at each start (no bytecode is written)"
    return "bytecode as this environment caches it (.pyc written after a first start)"


def table_benchmark() -> Iterator[str]:
    from benchmarks.card_to_screen import card_to_screen, frames_alone

    c = card_to_screen()
    ms = [x * 1000 for x in c.shown]
    yield (f"card to screen (pty frame written -> end of the 1920x1080 frame showing it, "
           f"UI loop woken by the inbox, at most 60 fps, SDL dummy driver, 7 seats, "
           f"{len(ms)} cards): p50 {statistics.median(ms):.1f} ms (target <= 3), "
           f"p99 {_pct(ms, 0.99):.1f} ms (target <= 10), max {max(ms):.1f} ms; a real "
           f"display with vsync adds up to one refresh (docs/ui.md)")
    names = ("the driver (pty read, frame decoded, ACK written, event out)",
             "the controller's queue + the journal commit (one sync)",
             "the engine + the view published", "the UI (woken, frame drawn and shown)")
    for i, name in enumerate(names):
        leg = [st[i] - (st[i - 1] if i else 0.0) for st in c.steps]
        yield f"  of which {name}: {_dist(leg)} ({len(leg)} cards)"
    hot, cold = frames_alone(c.views, 0.0), frames_alone(c.views, 0.005)
    yield (f"  the UI's frame for a card drawn again alone (the same views, this thread "
           f"only): back to back {_dist(hot)}; each after a 5 ms sleep {_dist(cold)}: what "
           f"this machine's idle cores add (docs/ui.md)")
    j = _journal_commit()
    yield (f"journal commit (WAL, synchronous=FULL, 1000 records each, all four taking "
           f"turns, in {os.getcwd()}): keyed chain (HMAC-SHA256), what a card waits for: "
           f"{_dist(j['commit'])}; its head file write + fdatasync after the view is out: "
           f"{_dist(j['head'])}; unkeyed SHA-256 chain, no head file (before issue 18): "
           f"{_dist(j['plain'])}")
    yield (f"  the disk alone (pwrite 256 B + fdatasync, same directory, same turns): "
           f"{_dist(j['disk'])}: a card's p99 cannot be below this sync's p99 without "
           f"showing a card before its record is durable")
    slept = _after_sleep()
    yield (f"  each after 50 ms asleep, as a card comes: the commit {_dist(slept['commit'])}; "
           f"the disk alone {_dist(slept['disk'])}")
    f = _idle(10.0)
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        runs = [_idle(0.5, os.ttyname(slave)) for _ in range(3)]
        with tempfile.TemporaryDirectory() as rel:
            tree = _release_tree(Path(rel))
            released = [_idle(0.5, os.ttyname(slave), tree) for _ in range(STARTS)]
    finally:
        os.close(master)
        os.close(slave)
    yield (f"idle table (etg run --headless, shoe sim on a pty, sim panel asleep on its "
           f"edges, nothing happening, /proc over 10 s): table process CPU "
           f"{f.table_cpu:.2f}% of one core (target < 2%), with the shoe simulator process "
           f"{f.table_cpu + f.shoe_sim_cpu:.2f}%; resident memory {f.rss:.0f} MiB")
    yield (f"libraries of the lab and the math mapped by the running table: "
           f"{', '.join(f.heavy) or 'none'} (of {', '.join(HEAVY)}; target none)")
    ready = sorted(r.ready for r in released)
    yield (f"start to ready as an installed table starts (a signed release of this checkout "
           f"unpacked, its modules' bytecode shipped in it, python -B; {STARTS} starts, shoe "
           f"on a pty as a USB shoe would be, sim panel): median "
           f"{statistics.median(ready):.2f} s from exec to 'table ready' (target <= 0.5 s), "
           f"min {ready[0]:.2f} s, max {ready[-1]:.2f} s; CPU time by then "
           f"{statistics.median(r.ready_cpu for r in released):.2f} s (what an unloaded "
           f"machine would take); inside the service after the imports "
           f"{statistics.median(r.internal for r in released):.2f} s (max "
           f"{max(r.internal for r in released):.2f} s: the RNG's start-up samples from "
           f"the hardware RNG, when it is slow to answer); load average "
           f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    yield (f"  the same starts from this checkout: median "
           f"{statistics.median(r.ready for r in runs):.2f} s, CPU "
           f"{statistics.median(r.ready_cpu for r in runs):.2f} s ({_bytecode_state()}); "
           f"with the shoe simulator's own process to start: {f.ready:.2f} s")
    yield f"config fingerprint at start (table + rules, best of 50): {_fingerprint_us():.1f} us"
    yield "rerun: python -m benchmarks table"
