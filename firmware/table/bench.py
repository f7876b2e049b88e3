"""`make bench` figures of the table service (issue 9).

- **card to screen**: this process plays the shoe on the master side of a real pty
  (HEL, then one ``CRD`` frame at a time); the real driver, controller (journal with
  fsync, engine) and UI runner (pygame, SDL dummy driver, 1920x1080, 60 frames a second
  as on the table) run as in ``etg run``. Latency is from ``os.write`` of the frame's last
  byte to the end of the first frame whose snapshot shows the card. 7 seats; each round is
  dealt (16 cards) and voided, 18 rounds (288 cards of one 6-deck shoe).
- **journal commit**: ``Journal.append_one`` of a typical input record (WAL,
  ``synchronous=FULL``: one fsync each) on the filesystem of the working directory.
- **idle CPU, resident memory, start to ready**: ``etg run --headless`` with the shoe
  simulator on a pty and the simulated panel, nothing happening; CPU from /proc over 10 s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast


def _pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def _card_to_screen(rounds: int = 18, seats: int = 7) -> list[float]:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from drivers.shoe.driver import ShoeDriver
    from drivers.shoe.framing import Decoder, encode
    from firmware.engine import Table, load_rules
    from firmware.engine.inputs import CloseBetting, Console, CreditsIn, NewShoe, Wager
    from firmware.engine.layout import layout_for
    from firmware.table.controller import Controller, ShoeHappening, StopHappening
    from firmware.table.journal import Journal
    from ui.layout_data import parse_layout
    from ui.runner import UiInbox, UiRunner

    tmp = tempfile.mkdtemp(prefix="etg-bench-")
    rules = load_rules("blackjack", {"burn_cards": 0})
    table = Table(rules, seats=seats, bench=True)
    journal = Journal(Path(tmp) / "j.sqlite")
    inbox = UiInbox()
    runner = UiRunner(parse_layout(layout_for(rules), "Bench"), inbox, size=(1920, 1080))
    class BenchController(Controller):
        """Runs the benchmark's own steps (wagers, void) on the controller's thread."""

        def handle(self, h: Any) -> None:
            if isinstance(h, _Call):
                h.fn()
                self.refresh()
            else:
                super().handle(h)

    ctl = BenchController(table, journal, publish=lambda v: inbox.put_view(
        {k: x for k, x in v.items() if k != "controller"}))
    for s in range(1, seats + 1):
        ctl.feed(CreditsIn(s, 10_000_000), "bench")
    ctl.feed(NewShoe(), "bench")

    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    driver = ShoeDriver(os.ttyname(slave), on_event=lambda e: ctl.put(ShoeHappening(e)))
    driver.start(require_port=True)
    ctl.shoe = driver
    worker = threading.Thread(target=ctl.run, name="controller", daemon=True)

    shown = threading.Event()
    want = [0]
    lat: list[float] = []
    cards = [r + s for s in "SHDC" for r in "A23456789TJQK"] * 8

    def on_screen(view: Any) -> int:
        if not view:
            return 0
        n = len(view["dealer"]["cards"])
        return n + sum(len(h["cards"]) for s in view["seats"] for h in s["hands"])

    decoder = Decoder()

    def answer_commands() -> None:
        """Acknowledge what the controller sent (LCK, ULK, LED...), as the shoe would."""
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        for frame in decoder.feed(data):
            if frame.type not in ("ACK", "NAK"):
                os.write(master, encode(frame.seq, "ACK"))

    def shoe() -> None:
        os.write(master, encode(0, "HEL", "1", "BENCH", "1", "B0"))
        seq = 0
        k = 0
        for _ in range(15):
            time.sleep(0.02)
            answer_commands()
        for _ in range(rounds):
            ctl.put(cast(Any, _Call(lambda: _new_round(ctl, seats, Wager, CloseBetting))))
            for _ in range(5):
                time.sleep(0.02)
                answer_commands()
            for i in range(2 * (seats + 1)):
                seq = (seq + 1) & 0xFF
                want[0] = i + 1
                shown.clear()
                os.write(master, encode(seq, "CRD", cards[k % len(cards)]))
                t0 = time.perf_counter()
                k += 1
                if not shown.wait(5):
                    v = runner.view or {}
                    raise RuntimeError(
                        f"card {k} never reached the screen: phase {v.get('phase')}, "
                        f"{on_screen(v)} cards shown, {want[0]} wanted, "
                        f"tilt {v.get('tilt')}, expecting {v.get('expecting')}")
                lat.append(time.perf_counter() - t0)
                answer_commands()
            ctl.put(cast(Any, _Call(lambda: ctl.feed(Console("VOID"), "bench"))))
            for _ in range(5):
                time.sleep(0.02)
                answer_commands()
        shown.set()

    pygame.display.init()
    surf = pygame.display.set_mode((1920, 1080))
    worker.start()
    feeder = threading.Thread(target=shoe, daemon=True)
    feeder.start()
    clock = pygame.time.Clock()
    try:
        while feeder.is_alive():
            runner.step(surf)
            pygame.display.flip()
            if on_screen(runner.view) >= want[0] and want[0]:
                shown.set()
            clock.tick(60)
    finally:
        ctl.put(StopHappening())
        worker.join(2)
        driver.stop()
        os.close(master)
        os.close(slave)
        journal.close()
        pygame.display.quit()
    return lat


class _Call:
    """A happening that runs a function on the controller's thread (bench only)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn


def _new_round(ctl: Any, seats: int, wager: Any, close: Any) -> None:
    for s in range(1, seats + 1):
        ctl.feed(wager(s, 500), "bench")
    ctl.feed(close(), "bench")


def _journal_commit(n: int = 1000) -> list[float]:
    from firmware.table.journal import Journal

    with tempfile.TemporaryDirectory(dir=".") as d:
        j = Journal(Path(d) / "j.sqlite")
        body = {"input": {"type": "card", "card": "TD"}, "source": "shoe"}
        out = []
        for _ in range(n):
            t0 = time.perf_counter()
            j.append_one("input", body, round_no=1)
            out.append(time.perf_counter() - t0)
        j.close()
    return out


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


def _idle() -> tuple[float, float, float, float]:
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, SDL_VIDEODRIVER="dummy")
        env.pop("DISPLAY", None)
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "firmware", "run", "--headless", "--journal",
             f"{d}/j.sqlite", "--shoe", "sim", "--panel", "sim"],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
        assert proc.stderr is not None
        ready = float("nan")
        for line in proc.stderr:
            if "table ready" in line:
                ready = time.monotonic() - t0
                break
        time.sleep(3)
        c0, w0 = _proc_cpu(proc.pid), time.monotonic()
        time.sleep(10)
        c1, w1 = _proc_cpu(proc.pid), time.monotonic()
        rss = _rss_mib(proc.pid)
        proc.terminate()
        proc.wait(10)
        from firmware.table.journal import Journal

        internal = float(Journal(f"{d}/j.sqlite").info("last_ready_s") or "nan")
    return (c1 - c0) / (w1 - w0) * 100, rss, ready, internal


def table_benchmark() -> Iterator[str]:
    lat = _card_to_screen()
    ms = [x * 1000 for x in lat]
    yield (f"card to screen (pty frame written -> end of the 1920x1080 frame showing it, "
           f"UI at 60 fps, 7 seats, {len(ms)} cards): p50 {statistics.median(ms):.1f} ms, "
           f"p99 {_pct(ms, 0.99):.1f} ms, max {max(ms):.1f} ms")
    jc = [x * 1000 for x in _journal_commit()]
    yield (f"journal commit (append + fsync, WAL synchronous=FULL, 1000 records in "
           f"{os.getcwd()}): p50 {statistics.median(jc):.2f} ms, p99 {_pct(jc, 0.99):.2f} ms")
    cpu, rss, ready, internal = _idle()
    yield (f"idle table (etg run --headless, shoe sim on a pty, sim panel scanning at "
           f"5 ms): CPU {cpu:.1f}% of one core over 10 s, resident memory {rss:.0f} MiB")
    yield (f"start to ready: {ready:.2f} s from exec to 'table ready' "
           f"({internal:.2f} s inside the service after imports)")
    yield "rerun: python -m firmware.benchmarks table"
