"""`make bench` figures for the panel: scan-loop CPU share and press-to-event latency.

Both run the production panel loop in real time on the ``sim`` backend (the electrical
model stands in for RPi.GPIO; its pin calls cost a few microseconds each in Python,
RPi.GPIO's about one, so the CPU figure is a pessimistic stand-in for the pins and an
optimistic one for a Pi's slower core).
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import threading
import time
from collections.abc import Iterator

from drivers.panel.buttons import PanelReport
from drivers.panel.panel import MatrixPanel
from drivers.panel.settings import PanelSettings
from drivers.panel.sim_pins import SimPins

IDLE_S = 4.0
PRESSES = 200


def _panel(period_ms: float, on_report: object = None) -> MatrixPanel:
    settings = dataclasses.replace(PanelSettings(), scan_period_ms=period_ms)
    return MatrixPanel(SimPins(settings.pins), settings, 7, on_report)  # type: ignore[arg-type]


def _thread_cpu(thread: threading.Thread | None) -> float:
    assert thread is not None and thread.ident is not None
    return time.clock_gettime(time.pthread_getcpuclockid(thread.ident))


def cpu_share(period_ms: float, seconds: float = IDLE_S, held: bool = False
              ) -> tuple[float, float, int, int]:
    """(panel thread CPU / wall, process CPU / wall, scans, overruns): no key down (the
    panel asleep on its edges), or one key ``held`` (scanning the whole time)."""
    panel = _panel(period_ms)
    panel.start()
    if held:
        panel.sim.press(1, "STAND")
    time.sleep(0.2)  # past start-up
    w0, p0, t0, s0 = time.perf_counter(), time.process_time(), _thread_cpu(panel._thread), \
        panel.scans
    time.sleep(seconds)
    wall = time.perf_counter() - w0
    thread = (_thread_cpu(panel._thread) - t0) / wall
    proc = (time.process_time() - p0) / wall
    scans = panel.scans - s0
    panel.stop()
    return thread, proc, scans, panel.overruns


def press_latencies(period_ms: float, presses: int = PRESSES) -> list[float]:
    """Seconds from closing a switch to its press event reaching the callback."""
    arrived = threading.Event()
    stamp: list[float] = []

    def on_report(ev: PanelReport) -> None:
        stamp.append(time.perf_counter())
        arrived.set()

    panel = _panel(period_ms, on_report)
    rnd = random.Random(7)
    out: list[float] = []
    panel.start()
    try:
        for i in range(presses):
            seat, col = 1 + i % 7, rnd.randrange(8)
            time.sleep(rnd.uniform(0, period_ms / 1000))  # a random moment
            arrived.clear()
            t0 = time.perf_counter()
            panel.sim.press(seat, col)
            if arrived.wait(1.0):
                out.append(stamp[-1] - t0)
            time.sleep(0.025)  # past the 20 ms guard, so the release is accepted
            arrived.clear()
            panel.sim.release(seat, col)
            arrived.wait(1.0)
            time.sleep(0.005)
    finally:
        panel.stop()
    return out


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def panel_benchmark() -> Iterator[str]:
    yield "what: the panel scan loop (7 rows x 8 columns + 4 console inputs, debounce,"
    yield "      event delivery) on its real-time thread, sim backend (electrical model)"
    yield "rerun: python -m benchmarks panel"
    thread, proc, scans, overruns = cpu_share(5.0)
    yield (
        f"CPU share, no key down (asleep: all rows LOW, waiting for a column edge): panel "
        f"thread {thread:.2%} of one core (pthread CPU clock / wall), process {proc:.2%} "
        f"(time.process_time / wall) over {IDLE_S:g} s; {scans} scans"
    )
    for period in (5.0, 10.0):
        thread, proc, scans, overruns = cpu_share(period, held=True)
        yield (
            f"CPU share, a key held, scan period {period:g} ms"
            f"{' (panel.scan_period_ms default)' if period == 5.0 else ' (ICD maximum)'}: "
            f"scan thread {thread:.1%} of one core (pthread CPU clock / wall), "
            f"process {proc:.1%} (time.process_time / wall) over {IDLE_S:g} s; "
            f"{scans} scans = {scans / IDLE_S:.0f}/s, {overruns} overruns"
        )
    lat = press_latencies(5.0)
    ms = [x * 1000 for x in lat]
    yield (
        f"press-to-event latency, scan period 5 ms, {len(ms)} presses at random moments, "
        f"each waking the sleeping panel (switch closed in the sim -> PanelReport in the "
        f"callback): p50 {statistics.median(ms):.1f} ms, p99 {_pct(ms, 0.99):.1f} ms "
        f"(target < 15 ms), max {max(ms):.1f} ms"
    )
    yield "expected: one scan period (the edge starts a pass, a second agrees) + a pass"
