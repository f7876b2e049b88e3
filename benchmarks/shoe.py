"""`make bench` figures for the shoe: card latency through the driver, and frame rates.

Latency: the benchmark plays the shoe on the master side of a real pseudo-terminal and
the driver opens the slave like a device. For each card it writes one ``CRD`` frame and
takes the time when ``os.write`` returns (the last byte is in the pty); the consumer (this
thread, blocked on the driver's event queue, as the table service would be) takes the time
when the ``card`` event arrives. One card in flight at a time, 10,000 cards.
"""

from __future__ import annotations

import os
import statistics
import time
import tty
from collections.abc import Iterator

from drivers.shoe.driver import ShoeDriver
from drivers.shoe.framing import encode
from drivers.shoe.reports import CardDealt, ShoeEmpty, ShoeHello
from etgcore.cards import deck

CARDS = deck()


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except (BlockingIOError, OSError):
        pass


def _latency(n: int) -> tuple[list[float], float]:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.set_blocking(master, False)
    driver = ShoeDriver(path).start(require_port=True)  # opened (and flushed) now
    try:
        os.write(master, encode(0, "HEL", "1", "BENCH", "1", "B0"))
        while not isinstance(driver.reports.get(timeout=5), ShoeHello):
            pass
        lat: list[float] = []
        t_start = time.perf_counter()
        for i in range(n):
            frame = encode((i + 1) & 0xFF, "CRD", CARDS[i % 52])
            os.write(master, frame)
            t0 = time.perf_counter()
            while True:
                event = driver.reports.get(timeout=5)
                if isinstance(event, CardDealt):
                    break
            lat.append(time.perf_counter() - t0)
            if i % 64 == 0:
                _drain(master)  # the driver's ACKs
        return lat, time.perf_counter() - t_start
    finally:
        driver.stop()
        os.close(master)
        os.close(slave)


def _ingest(n: int, batch: int = 50) -> float:
    """Frames per second the driver decodes, acknowledges and delivers, fed in bursts."""
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    os.set_blocking(master, False)
    driver = ShoeDriver(path).start(require_port=True)  # opened (and flushed) now
    try:
        os.write(master, encode(0, "HEL", "1", "BENCH", "1", "B0"))
        while not isinstance(driver.reports.get(timeout=5), ShoeHello):
            pass
        frames = [encode((i + 1) & 0xFF, "CRD", CARDS[i % 52]) for i in range(n)]
        got = 0
        t0 = time.perf_counter()
        for k in range(0, n, batch):
            os.set_blocking(master, True)
            os.write(master, b"".join(frames[k:k + batch]))
            os.set_blocking(master, False)
            want = min(k + batch, n)
            while got < want:
                if isinstance(driver.reports.get(timeout=5), CardDealt):
                    got += 1
            _drain(master)
        return n / (time.perf_counter() - t0)
    finally:
        driver.stop()
        os.close(master)
        os.close(slave)


def _protocol(seconds: float) -> tuple[int, float]:
    """Cards per second with the simulator at pace 0: stop-and-wait, every ACK awaited."""
    from drivers.shoe.sim_settings import SimSettings
    from drivers.shoe.simulator import ShoeSimulator

    cards = CARDS * 1000
    sim = ShoeSimulator.on_pty(SimSettings(cards=cards, pace_s=0.0, cut_after=len(cards)))
    sim.start()
    driver = ShoeDriver(sim.path).start()
    try:
        while not isinstance(driver.reports.get(timeout=5), ShoeHello):
            pass
        driver.unlock()
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            event = driver.reports.get(timeout=5)
            if isinstance(event, CardDealt):
                n += 1
            elif isinstance(event, ShoeEmpty):
                break
        return n, time.perf_counter() - t0
    finally:
        driver.stop()
        sim.stop()


def shoe_benchmark(n: int = 10_000) -> Iterator[str]:
    yield ("what: shoe driver, latency from the last byte of a CRD frame written to a pty "
           "until the card event reaches the consumer thread")
    yield ("how: benchmark thread = shoe on the pty master, driver on the slave via pyserial, "
           "consumer blocked on driver.reports; one card in flight; rerun: "
           "python -m benchmarks shoe")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    yield (f"machine load average (1 min) at start: {load:.1f} on {os.cpu_count()} cores "
           "(the p99 tail is OS scheduling: rerun on a quiet machine to compare)")
    lat, elapsed = _latency(n)
    ms = sorted(x * 1000 for x in lat)
    p50 = statistics.median(ms)
    p99 = ms[int(len(ms) * 0.99) - 1]
    yield (f"latency over {n} cards: p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {ms[-1]:.3f} ms "
           f"(target p99 < 5 ms: {'met' if p99 < 5 else 'NOT met'})")
    yield f"one-at-a-time card rate: {n / elapsed:,.0f} cards/s"
    rate = _ingest(n)
    yield (f"driver ingest, {n} CRD frames written in bursts of 50: {rate:,.0f} frames/s "
           "decoded, ACKed and delivered")
    cards, secs = _protocol(3.0)
    yield (f"full protocol with the simulator at pace 0 (stop-and-wait, each CRD ACKed before "
           f"the next): {cards / secs:,.0f} cards/s sustained over {secs:.1f} s "
           f"({cards} cards)")
