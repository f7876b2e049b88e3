"""The shoe driver: a thread that owns the serial port and speaks the ICD for the table.

The table service calls :meth:`ShoeDriver.lock`, :meth:`ShoeDriver.unlock` and friends
from its own loop; those calls only queue a command and wake the I/O thread, so they
return at once whatever the shoe or the cable is doing. Events come back through the
callback given at construction (called on the driver's thread: it must only hand the
event over, e.g. ``queue.put_nowait`` or :func:`asyncio_sink`) or, without a callback,
through :attr:`ShoeDriver.reports`, an unbounded queue.

The port is anything ``serial.serial_for_url`` opens: ``/dev/etg-shoe``, a pty path,
``socket://127.0.0.1:7001``, ``rfc2217://host:port``. When it fails (USB unplugged, the
simulator restarted) the driver reports ``link-down`` and reopens with exponential
backoff until it comes back.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import serial

from drivers.errors import DeviceError
from drivers.shoe.models import ReaderModel, default_model
from drivers.shoe.reliability import ICD_TIMING, Timing
from drivers.shoe.reports import LinkDown, LinkUp, ProtocolFault, ShoeFault, ShoeHello, ShoeReport
from drivers.shoe.session import LED_MODES, ControllerSession
from etgcore.errors import UserError

if TYPE_CHECKING:  # asyncio is for callers that use it; the table never loads it
    import asyncio

log = logging.getLogger("etg.shoe")

ReportSink = Callable[[ShoeReport], None]

#: ICD §1: 115200 8N1, no flow control.
BAUDRATE = 115200
#: The longest the I/O thread waits in a read before looking at its timers again, on a
#: port whose read a command cannot interrupt (no ``cancel_read``, e.g. ``loop://``).
READ_SLICE_S = 0.01
#: On a port with ``cancel_read`` (a real serial port, a pty) the read waits until the
#: link's next deadline or a command, at most this long: an idle table sleeps.
READ_IDLE_MAX_S = 1.0


class ShoePortError(DeviceError, UserError):
    """The shoe's port could not be opened (the monitor reports it in one line)."""


def open_port(url: str, *, read_timeout: float = READ_SLICE_S) -> Any:
    """Open the shoe's port as the ICD wants it; raise ShoePortError with the reason."""
    kwargs: dict[str, Any] = {
        "baudrate": BAUDRATE, "bytesize": 8, "parity": "N", "stopbits": 1,
        "xonxoff": False, "rtscts": False, "timeout": read_timeout, "write_timeout": 1.0,
    }
    if "://" not in url:
        kwargs["exclusive"] = True  # two readers of one shoe would each lose cards
    try:
        return serial.serial_for_url(url, **kwargs)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise ShoePortError(f"cannot open shoe port {url}: {_reason(exc)}") from None


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    # pyserial wraps OSError as "[Errno 2] could not open port X: [Errno 2] No such ..."
    return text.split(": ", 1)[-1] if text.startswith("[Errno") else text


def asyncio_sink(loop: asyncio.AbstractEventLoop, q: asyncio.Queue[ShoeReport]) -> ReportSink:
    """A callback that hands events to an asyncio queue from the driver thread."""

    def sink(event: ShoeReport) -> None:
        loop.call_soon_threadsafe(q.put_nowait, event)

    return sink


class ShoeDriver:
    """The controller side of the shoe ICD on its own thread. See the module docstring.

    ``timing`` scales the protocol (tests); ``resync`` sends ``RST`` when attaching to a
    shoe that does not greet us with ``HEL``; ``heartbeats`` also delivers ``heartbeat``
    events; ``backoff`` is the (first, longest) wait between reopen attempts.
    """

    def __init__(self, url: str, on_report: ReportSink | None = None, *,
                 timing: Timing = ICD_TIMING, resync: bool = True, heartbeats: bool = False,
                 backoff: tuple[float, float] = (0.1, 2.0), name: str = "shoe",
                 model: ReaderModel | None = None) -> None:
        self.url = url
        self.reports: queue.SimpleQueue[ShoeReport] = queue.SimpleQueue()
        self._sink: ReportSink = on_report if on_report is not None else self.reports.put
        self._session = ControllerSession(timing, resync=resync, heartbeats=heartbeats,
                                          model=model or default_model())
        self._backoff = backoff
        self._commands: queue.SimpleQueue[tuple[str, tuple[str, ...]]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"{name}-io", daemon=True)
        self._port: Any = None
        self._lock = threading.Lock()
        self.reopens = 0
        #: a link-down was delivered and no link-up since (one report per outage)
        self._down = False

    # ---- life ----------------------------------------------------------------------------

    def start(self, *, require_port: bool = False) -> ShoeDriver:
        """Start the I/O thread. ``require_port``: open now and raise ShoePortError if the
        port cannot be opened (a technician's typo); otherwise keep retrying in the thread.
        """
        if require_port:
            self._port = open_port(self.url)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        """Stop the thread and close the port (the gate stays as the shoe has it)."""
        self._stop.set()
        self._wake()
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._close_port()

    def __enter__(self) -> ShoeDriver:
        return self.start() if not self._thread.is_alive() else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def link_up(self) -> bool:
        return self._session.link.peer_up

    def stats(self) -> dict[str, Any]:
        """Counters for a technician: decoder drops, retransmissions, duplicates, reopens."""
        with self._lock:
            return {"link_up": self.link_up, "synced": self._session.synced,
                    "reopens": self.reopens, "decoder": self._session.decoder.stats.as_dict(),
                    "link": dict(self._session.link.counters)}

    # ---- commands (ICD §5); all return at once -------------------------------------------

    def new(self, decks: int) -> None:
        """A freshly shuffled shoe of ``decks`` (1-8) decks is loaded."""
        if not isinstance(decks, int) or not 1 <= decks <= 8:
            raise ValueError(f"decks must be 1..8, not {decks!r}")
        self._queue("NEW", str(decks))

    def lock(self) -> None:
        """Lock the gate: no card until :meth:`unlock`."""
        self._queue("LCK")

    def unlock(self) -> None:
        """Unlock the gate: only while a card is due."""
        self._queue("ULK")

    def led(self, mode: str) -> None:
        if mode not in LED_MODES:
            raise ValueError(f"LED mode must be one of {', '.join(LED_MODES)}, not {mode!r}")
        self._queue("LED", mode)

    def query(self) -> None:
        """Ask for a ``status`` event."""
        self._queue("QRY")

    def reset(self) -> None:
        """Soft reset: the shoe answers with ``hello`` and a locked gate."""
        self._queue("RST")

    def _queue(self, type_: str, *fields: str) -> None:
        self._commands.put((type_, fields))
        self._wake()

    def _wake(self) -> None:
        port = self._port
        cancel = getattr(port, "cancel_read", None)
        if cancel is not None:
            with contextlib.suppress(Exception):  # a closing port: the thread notices anyway
                cancel()

    # ---- the I/O thread -----------------------------------------------------------------

    def _deliver(self, events: list[ShoeReport]) -> None:
        for event in events:
            if isinstance(event, LinkDown):
                if self._down:
                    log.debug("shoe still down: %s", event.detail)
                    continue
                self._down = True
                log.warning("shoe link down: %s", event.detail)
            elif isinstance(event, LinkUp):
                self._down = False
            if isinstance(event, ShoeFault | ProtocolFault | ShoeHello):
                log.info("shoe %s %s", event.describe(), event.raw or "")
            try:
                self._sink(event)
            except Exception:
                log.exception("shoe event consumer failed on %s", event.kind)

    def _close_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(Exception):  # closing a vanished device may fail
                port.close()

    def _run(self) -> None:
        session = self._session
        delay = self._backoff[0]
        opened_once = self._port is not None
        if opened_once:
            session.port_opened(time.monotonic())
        while not self._stop.is_set():
            if self._port is None:
                try:
                    self._port = open_port(self.url)
                except ShoePortError as exc:
                    # missing from the start (or gone): a link-down the table tilts on,
                    # reported once; the retries back off up to the longest wait
                    self._deliver([LinkDown(
                        f"{exc}; retrying every {self._backoff[1]:g} s at most",
                        at=time.monotonic())])
                    log.debug("%s; retrying in %.1f s", exc, delay)
                    self._stop.wait(delay)
                    delay = min(delay * 2, self._backoff[1])
                    continue
                delay = self._backoff[0]
                if opened_once:
                    self.reopens += 1
                    log.info("shoe port %s reopened", self.url)
                opened_once = True
                with self._lock:
                    session.port_opened(time.monotonic())
            try:
                self._step(session)
            except (serial.SerialException, OSError) as exc:
                log.warning("shoe port %s lost: %s", self.url, _reason(exc))
                self._close_port()
                with self._lock:
                    lost = session.port_lost(time.monotonic(), _reason(exc))
                self._deliver(lost)

    def _set_read_timeout(self, port: Any, session: ControllerSession) -> None:
        """Read until the link's next deadline (a retransmission, the peer's silence
        limit) instead of a fixed slice, where a command can cut the read short."""
        if getattr(port, "cancel_read", None) is None:
            return
        with self._lock:
            deadline = session.next_deadline()
        wait = READ_IDLE_MAX_S if deadline is None else deadline - time.monotonic()
        wait = round(min(READ_IDLE_MAX_S, max(0.0, wait)), 3)
        if port.timeout != wait:
            port.timeout = wait

    def _step(self, session: ControllerSession) -> None:
        port = self._port
        events: list[ShoeReport] = []
        with self._lock:
            now = time.monotonic()
            while True:
                try:
                    type_, fields = self._commands.get_nowait()
                except queue.Empty:
                    break
                session.command(type_, *fields, now=now)
            events += session.poll(now)
            out = session.take_output()
        if out:
            port.write(out)
        self._deliver(events)
        self._set_read_timeout(port, session)
        data = port.read(max(1, port.in_waiting))
        if data and port.in_waiting:
            # the read woke on a frame's first byte: the rest is there too (one pass per
            # frame, not two: a card's frame reaches the controller ~0.1 ms sooner)
            data += port.read(port.in_waiting)
        if data:
            with self._lock:
                events = session.feed(data, time.monotonic())
                out = session.take_output()
            if out:
                port.write(out)  # answer first: the ICD gives us 100 ms
            self._deliver(events)
