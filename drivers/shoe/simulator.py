"""The simulated shoe as a library: a thread running :class:`ShoeMachine` on a port.

The bench (and the tests, and ``etg shoe sim``) build one with :meth:`ShoeSimulator.on_pty`,
:meth:`~ShoeSimulator.on_url` or :meth:`~ShoeSimulator.on_tcp`, start it, and then script
it while it runs: every method below is thread-safe and takes effect at once.

    with ShoeSimulator.on_pty(SimSettings(cards=["AS", "KD"], pace_s=0.05)) as sim:
        driver = ShoeDriver(sim.path).start()
        sim.inject("misread")              # a fault now
        sim.send_frame("HEL,1,X,1,SN1")    # any shoe->controller frame body now
        sim.set_pace(0.5)
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from drivers.shoe.framing import Frame
from drivers.shoe.models import ReaderModel, default_model
from drivers.shoe.sim_machine import ShoeMachine, Shuffler, SimSettings, rng_shuffler
from drivers.shoe.sim_ports import PtyPort, SimPort, TcpPort, UrlPort

log = logging.getLogger("etg.shoe.sim")

#: The longest the simulator sleeps before looking at its port and timers again.
SLICE_S = 0.05


class ShoeSimulator:
    """A running simulated shoe; see the module docstring and docs/shoe.md."""

    def __init__(self, port: SimPort, settings: SimSettings | None = None, *,
                 shuffler: Shuffler = rng_shuffler,
                 clock: Callable[[], float] = time.monotonic,
                 model: ReaderModel | None = None) -> None:
        self.port = port
        self.settings = settings or SimSettings()
        self._clock = clock
        self.machine = ShoeMachine(self.settings, clock(), shuffler, model or default_model())
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._thread = threading.Thread(target=self._run, name="shoe-sim", daemon=True)
        self.error: BaseException | None = None

    # ---- construction ------------------------------------------------------------------

    @classmethod
    def on_pty(cls, settings: SimSettings | None = None, *, link: str | None = None,
               **kw: Any) -> ShoeSimulator:
        """A new pseudo-terminal; open :attr:`path` (or ``link``) as the shoe's port."""
        return cls(PtyPort(link), settings, **kw)

    @classmethod
    def on_url(cls, url: str, settings: SimSettings | None = None, **kw: Any) -> ShoeSimulator:
        """Serve an existing port (e.g. one end of a ``socat`` pty pair)."""
        return cls(UrlPort(url), settings, **kw)

    @classmethod
    def on_tcp(cls, host: str = "127.0.0.1", port: int = 0,
               settings: SimSettings | None = None, **kw: Any) -> ShoeSimulator:
        """Listen for one controller at a time on TCP (``socket://HOST:PORT``)."""
        return cls(TcpPort(host, port), settings, **kw)

    @property
    def path(self) -> str:
        """What the controller opens: the pty path (or its link), or a socket:// URL."""
        if isinstance(self.port, PtyPort):
            return self.port.link or self.port.path
        if isinstance(self.port, TcpPort):
            host, port = self.port.address
            return f"socket://{host}:{port}"
        return self.port.description

    # ---- life --------------------------------------------------------------------------

    def start(self) -> ShoeSimulator:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop and unplug (the pty disappears, the TCP listener closes)."""
        self._stop.set()
        self._wake()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(2.0)
        self.port.close()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the simulator stops (``etg shoe sim`` in the foreground)."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def __enter__(self) -> ShoeSimulator:
        return self.start() if not self._thread.is_alive() else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- bench API (thread-safe, immediate) -----------------------------------------------

    def _do(self, fn: Callable[[float], Any]) -> Any:
        with self._lock:
            result = fn(self._clock())
        self._wake()
        return result

    def load_cards(self, cards: Sequence[str], *, append: bool = False) -> None:
        """The cards still to come, in order (``append``: after those already queued)."""
        self._do(lambda now: self.machine.load_cards(list(cards), now, append=append))

    def inject(self, kind: str, arg: float | None = None) -> None:
        """Inject a fault now: bad-crc, drop, duplicate, late-ack, garbage, misread, double,
        jam, lid, sensor, silence, reboot (``arg`` per docs/shoe.md)."""
        self._do(lambda now: self.machine.inject(kind, arg, now))

    def send_frame(self, body: str) -> None:
        """Send a shoe->controller frame body now, e.g. ``"ERR,MISREAD"`` or ``"CUT"``."""
        self._do(lambda now: self.machine.send_body(body, now))

    def send_raw(self, data: bytes) -> None:
        """Write these bytes as they are (noise, hand-made frames)."""
        self._do(lambda now: self.machine.send_raw(data))

    def set_pace(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("pace must be 0 or more seconds")

        def apply(now: float) -> None:
            self.machine.s.pace_s = seconds
            self.machine.next_deal = min(self.machine.next_deal, now + seconds)

        self._do(apply)

    def set_cut_after(self, cards: int) -> None:
        """Place the cut card after ``cards`` cards of the current shoe."""
        def apply(now: float) -> None:
            self.machine.cut_at = cards
            self.machine.cut_done = self.machine.count > cards

        self._do(apply)

    def clear_fault(self) -> None:
        """The technician cleared a jam / closed the lid: leave FAULT (RST does it too)."""
        self._do(lambda now: self.machine.clear_fault())

    def status(self) -> dict[str, Any]:
        status: dict[str, Any] = self._do(self.machine.status)
        status["port"] = self.path
        return status

    def received(self) -> list[Frame]:
        """Every controller frame the shoe acted on, in order (not duplicates)."""
        return list(self._do(lambda now: list(self.machine.received)))

    # ---- the loop ----------------------------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"!")

    def _run(self) -> None:
        try:
            self._loop()
        except Exception as exc:  # a dead simulator must say why (the bench reads it)
            self.error = exc
            log.exception("shoe simulator stopped")

    def _loop(self) -> None:
        m = self.machine
        while not self._stop.is_set():
            with self._lock:
                deadline = m.next_deadline()
            fds = self.port.fds()
            timeout = SLICE_S if fds else 0.02
            if deadline is not None:
                timeout = max(0.0, min(timeout, deadline - self._clock()))
            ready, _, _ = select.select([*fds, self._wake_r], [], [], timeout)
            if self._wake_r in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_r, 4096)
            if self._stop.is_set():
                break
            data, attached = self.port.service()
            with self._lock:
                now = self._clock()
                if attached and not m.connected:
                    m.connect(now)
                elif not attached and m.connected:
                    m.disconnect(now)
                if data:
                    m.feed(data, now)
                m.poll(now)
                out = m.take_output()
            if out and attached:
                self.port.write(out)
