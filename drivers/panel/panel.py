"""The Panel interface the table service uses, and the panel on pins (gpio or sim).

Every backend delivers :class:`~drivers.panel.buttons.PanelReport` objects without
ever blocking the receiver: into :attr:`Panel.reports` (an unbounded queue), or to an
``on_report`` callback called from the panel's own thread (it must return quickly).
Lamps are commanded with :meth:`Panel.set_lamps` and written only when they change.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from types import TracebackType

from drivers.panel.buttons import CONSOLE_BUTTONS, MAX_SEATS, PanelReport
from drivers.panel.lamps import ALL_OFF, LampChain, LampState, decode, encode
from drivers.panel.pins import HIGH, LOW, Pins
from drivers.panel.scanner import ConsoleInputs, MatrixScanner
from drivers.panel.settings import PanelSettings
from drivers.panel.sim_pins import SimPins

log = logging.getLogger("etg.panel")

ReportSink = Callable[[PanelReport], None]


class Panel(ABC):
    """Player panels, lamps and dealer console, whatever the backend."""

    backend = "panel"

    def __init__(self, seats: int, on_report: ReportSink | None = None) -> None:
        self.seats = seats
        self.on_report = on_report
        self.reports: queue.SimpleQueue[PanelReport] = queue.SimpleQueue()
        self._wanted: LampState = ALL_OFF
        self._lamp_lock = threading.Lock()  # keeps _wanted and the chain in step

    def deliver(self, ev: PanelReport) -> None:
        """Hand one event to the callback, else the queue; a failing callback is logged."""
        log.debug("panel %s %s", ev.kind, ev.where())
        sink = self.on_report
        if sink is None:
            self.reports.put(ev)
            return
        try:
            sink(ev)
        except Exception:
            log.exception("panel event callback failed on %s %s", ev.kind, ev.where())

    def get_event(self, timeout: float | None = None) -> PanelReport | None:
        """The next queued event, waiting up to ``timeout`` seconds (None: forever)."""
        try:
            return self.reports.get(timeout=timeout)
        except queue.Empty:
            return None

    def set_lamps(self, lit: Mapping[int, Iterable[str]]) -> bool:
        """Light exactly these buttons, ``{seat: {"HIT", "STAND"}, ...}``; every other
        lamp goes dark. Returns True if the lamps had to change."""
        state = encode(lit, self.seats)
        with self._lamp_lock:
            if state == self._wanted:
                return False
            self._wanted = state
            self._show(state)
        return True

    def lamps(self) -> dict[int, frozenset[str]]:
        """The lamps as last commanded: {seat: {button, ...}}, dark seats left out."""
        return decode(self._wanted)

    def _show(self, state: LampState) -> None:  # noqa: B027 - optional for a backend
        """Put ``state`` on the hardware (nothing for a backend without lamps)."""

    @abstractmethod
    def start(self) -> None:
        """Claim the hardware and begin delivering events."""

    @abstractmethod
    def stop(self) -> None:
        """Stop delivering events and release the hardware (lamps go dark)."""

    def __enter__(self) -> Panel:
        self.start()
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class MatrixPanel(Panel):
    """Panels, lamps and console on a :class:`~drivers.panel.pins.Pins` backend.

    ``clock`` and ``sleep`` are injectable: with a
    :class:`~drivers.panel.clock.ManualClock`, :meth:`step` and :meth:`run_for`
    drive the scanner deterministically in simulated time.

    :meth:`start` runs the table's loop on a thread in real time, which sleeps while no
    key is down: every seat row is driven LOW at once, so any closed switch pulls its
    column LOW, and the thread waits for a falling edge on any column or console input
    (:meth:`idle_wait`; GPIO interrupts on the Pi). On an edge it scans at the scan
    period, the same passes and debouncer as :meth:`run_for`, until every switch is
    released and settled (:meth:`settled`), then sleeps again. An idle table costs no
    CPU, and a press is seen at the first pass after its edge.
    """

    def __init__(
        self,
        pins: Pins,
        settings: PanelSettings,
        seats: int,
        on_report: ReportSink | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(seats, on_report)
        self.backend = pins.name
        self.pins = pins
        self.settings = settings
        self.clock, self.sleep = clock, sleep
        self.period_s = settings.scan_period_ms / 1000.0
        m = settings.pins
        self.scanner = MatrixScanner(
            pins, m.rows[:seats], m.columns, settings.settle_us / 1e6,
            settings.debounce_ms / 1000.0, settings.stuck_key_s, sleep,
        )
        console_pins = (m.deal, m.shuffle, m.void, m.recall)
        self.console = ConsoleInputs(
            pins, list(zip(CONSOLE_BUTTONS, console_pins, strict=True)),
            settings.debounce_ms / 1000.0, settings.stuck_key_s,
        )
        self.chain = LampChain(pins, m.lamp_data, m.lamp_clock, m.lamp_latch)
        self._idle_rows = m.rows[seats:MAX_SEATS]
        self._lock = threading.Lock()  # one user of the pins at a time
        self._ready = False
        self._stop = threading.Event()
        self._wake = threading.Event()  # an edge while idle, or stop()
        self._thread: threading.Thread | None = None
        self._edge_pins = (*m.columns, *console_pins)
        self.scans = 0
        self.overruns = 0
        self.wakeups = 0  # idle sleeps ended by an edge (or a key found already down)

    @property
    def sim(self) -> SimPins:
        """The bench side of a ``sim`` panel: press/release switches, read the lamps."""
        if not isinstance(self.pins, SimPins):
            raise AttributeError(f"panel backend {self.backend!r} has no simulator")
        return self.pins

    def setup(self) -> None:
        """Configure every pin and blank the lamps (then show the wanted ones)."""
        with self._lock:
            if self._ready:
                return
            self.scanner.setup()
            for row in self._idle_rows:  # rows of absent seats idle high too
                self.pins.setup_output(row, 1)
            self.console.setup()
            self.chain.setup()
            self.chain.apply(self._wanted)
            self._ready = True

    def _show(self, state: LampState) -> None:
        with self._lock:
            if self._ready:
                self.chain.apply(state)

    def step(self) -> list[PanelReport]:
        """One scan pass of every row and the console; delivers and returns its events."""
        if not self._ready:
            self.setup()
        with self._lock:
            masks = self.scanner.sample()
            console = self.console.sample()
            t = self.clock()
            events = self.scanner.debounce(masks, t) + self.console.debounce(console, t)
            self.scans += 1
        for ev in events:
            self.deliver(ev)
        return events

    def run_for(self, seconds: float, until_settled: bool = False) -> None:
        """Scan at the scan period for ``seconds`` of the panel clock (or until stopped;
        with ``until_settled``, also until every switch is released and at rest)."""
        end = self.clock() + seconds
        due = self.clock()
        while not self._stop.is_set() and self.clock() < end:
            self.step()
            if until_settled and self.settled():
                return
            due += self.period_s
            delay = due - self.clock()
            if delay < 0:  # fell behind (a loaded machine): skip, never burst
                self.overruns += 1
                due = self.clock()
                delay = 0.0
            self.sleep(delay)

    def settled(self) -> bool:
        """No switch reads closed or is accepted pressed, and no change is pending: the
        debouncer has nothing left to decide, so the panel may stop scanning."""
        return all(d.at_rest() for d in (*self.scanner.debouncers, self.console.debouncer))

    def idle_wait(self, timeout_s: float | None = None) -> bool:
        """Sleep until a key may be down: all seat rows LOW, wait for a falling edge on a
        column or console input (or ``timeout_s``, or :meth:`stop`). True if woken by an
        edge or a console input already LOW; the rows are HIGH again on return.

        The edges are armed *before* the rows go LOW, so a key held since the last scan
        makes its column fall right then; a console input held since then is read once."""
        if not self._ready:
            self.setup()
        self._wake.clear()
        pins, rows = self.pins, self.scanner.rows
        with self._lock:
            pins.wake_on_edges(self._edge_pins, "falling", self._wake.set)
            for row in rows:
                pins.write(row, LOW)
            held = self.console.sample() != 0
        try:
            woke = held or self._wake.wait(timeout_s)
        finally:
            with self._lock:
                pins.stop_waking(self._edge_pins)
                for row in rows:
                    pins.write(row, HIGH)
        woke = woke and not self._stop.is_set()
        self.wakeups += woke
        return woke

    def start(self) -> None:
        if self._thread is not None:
            return
        self.setup()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="panel-scan", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                if self.idle_wait():
                    self.run_for(float("inf"), until_settled=True)
        except Exception as exc:  # a pin fault: the table must hear of it and tilt
            log.exception("panel scan stopped")
            self.deliver(PanelReport("fault", "SCAN", None, self.clock(), str(exc)))

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._lock:
            if self._ready:
                self.chain.apply(ALL_OFF)
                self.pins.close()
                self._ready = False
                self.chain.shown = None
