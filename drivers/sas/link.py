"""The SAS link thread: reads the line, splits it into polls, answers ours at once.

The thread owns the port and never waits on anything but the port: the answer to a poll
comes from :attr:`SasLink.respond` (the table's seats answer from a snapshot the
controller publishes, firmware.table.sas), which must not block. A poll for an address
that is not ours, a broadcast (address 0), a poll nobody answers (``respond`` gives
None: unknown or unsupported, as the protocol says) and every byte the splitter drops are
counted in :attr:`SasLink.counts`; an exception inside ``respond`` is counted and logged
and the link goes on. A lost host (no poll for one of our addresses for
``host_lost_s``) is reported once through ``on_host(False)``, its return through
``on_host(True)``.
"""

from __future__ import annotations

import logging
import os
import resource
import threading
import time
from collections import Counter, deque
from collections.abc import Callable

from drivers.sas.framing import INTERBYTE_S, Poll, Splitter
from drivers.sas.ports import LinkPort, wait_readable

log = logging.getLogger("etg.sas")

Responder = Callable[[Poll], "bytes | None"]
#: a silence this long before bytes arrive: the host may be a new one (pty: stale
#: answers an earlier host left unread are dropped)
IDLE_S = 1.0
#: a long poll left unanswered (its answer not ready: the ROM signature) is answered
#: late while the line stays quiet this long after it; any byte from the host ends it
LATE_S = 2.0


#: the real-time priority asked for the link process (SCHED_FIFO; 1..99, low: a kernel's
#: own threads stay above it)
RT_PRIORITY = 10
#: a real-time link that runs this long without blocking is killed by the kernel
#: (RLIMIT_RTTIME, microseconds: SIGXCPU, then SIGKILL at the hard limit) and started
#: again by the table: a loop that never sleeps cannot take a core from the table
RT_CPU_LIMIT_US = (200_000, 400_000)


def raise_priority(realtime: bool) -> str:
    """Ask the kernel to run the calling thread before the table's work when a poll
    comes: ``realtime`` (a link process of its own): SCHED_FIFO under an RLIMIT_RTTIME
    guard; else, or if refused, nice -10 (this thread only, on Linux). Returns what was
    granted (logged): a table without the privilege (CAP_SYS_NICE) runs as before."""
    if realtime:
        try:
            resource.setrlimit(resource.RLIMIT_RTTIME, RT_CPU_LIMIT_US)
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(RT_PRIORITY))
            return f"SCHED_FIFO {RT_PRIORITY}"
        except (OSError, AttributeError, ValueError):
            pass
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -10)
        return "nice -10"
    except (OSError, AttributeError):
        return "normal (no privilege to raise it)"


class SasLink:
    def __init__(self, port: LinkPort, addresses: set[int], respond: Responder, *,
                 interbyte_s: float = INTERBYTE_S, host_lost_s: float = 0.0,
                 on_host: Callable[[bool], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.port = port
        self.addresses = frozenset(addresses)
        self.respond = respond
        self.splitter = Splitter(interbyte_s)
        self.host_lost_s = host_lost_s
        self.on_host = on_host or (lambda present: None)
        self.clock = clock
        self.counts: Counter[str] = Counter()
        #: the last response times (seconds from the poll's last byte to our write)
        self.latencies: deque[float] = deque(maxlen=10_000)
        #: CPU time the link thread spent answering (respond and write), for the figure
        #: a slower CPU scales: the work of an answer, without the waits for the GIL
        self.cpu_ns = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_ours: float | None = None
        self._last_byte: float | None = None
        self.host_present = False
        #: asked, while the line is quiet after a long poll left unanswered, whether the
        #: machine at that address can answer it now (None: no late answers)
        self.late: Callable[[int], bytes | None] | None = None
        self._waiting: tuple[int, float] | None = None
        #: the link thread raises its own priority when it starts (``sas.priority``)
        self.priority = "normal"
        self.granted = "normal"

    # -- the thread ---------------------------------------------------------------------

    def start(self) -> SasLink:
        self._thread = threading.Thread(target=self._run, name="sas-link", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
        self.port.close()

    def _run(self) -> None:
        if self.priority == "raised":  # this thread only: the table's others stay as they are
            self.granted = raise_priority(realtime=False)
            log.info("SAS link thread priority: %s", self.granted)
        while not self._stop.is_set():
            try:
                self.step(0.05)
            except Exception:  # the link never dies of one bad moment; counted
                log.exception("SAS link: unexpected error")
                self.counts["internal_error"] += 1
                time.sleep(0.01)

    def step(self, timeout: float) -> None:
        """Wait up to ``timeout`` for bytes; handle what came; check the host's absence."""
        if wait_readable(self.port, timeout):
            data = self.port.read()
            now = self.clock()
            if data and (self._last_byte is None or now - self._last_byte > IDLE_S):
                # a host begins after a silence (maybe a new one): what an earlier host
                # left unread of our answers must not be its first bytes
                flush = getattr(self.port, "flush_stale", None)
                if flush is not None:
                    flush()
            if data:
                self._last_byte = now
                self._waiting = None  # the host moved on: no late answer into its next poll
            for byte, wake in data:
                poll = self.splitter.feed(byte, self.clock(), wake)
                if poll is not None:
                    self.handle(poll)
        now = self.clock()
        self.splitter.expire(now)
        self._answer_late(now)
        self._watch_host(now)

    def _answer_late(self, now: float) -> None:
        if self._waiting is None or self.late is None:
            return
        address, since = self._waiting
        if now - since > LATE_S or self.splitter.buf:
            self._waiting = None
            return
        reply = self.late(address)
        if reply is not None:
            self._waiting = None
            self.port.write(reply)
            self.counts["answered_late"] += 1

    def handle(self, poll: Poll) -> None:
        self.counts["polls"] += 1
        if poll.address == 0:
            self.counts["broadcast"] += 1
            return
        if poll.address not in self.addresses:
            self.counts["other_address"] += 1
            return
        self._last_ours = self.clock()
        if not self.host_present:
            self.host_present = True
            self.on_host(True)
        cpu0 = time.thread_time_ns()
        try:
            reply = self.respond(poll)
        except Exception:
            log.exception("SAS link: answering %s", poll.raw.hex())
            self.counts["respond_error"] += 1
            return
        if reply is None:
            self.counts["unanswered"] += 1
            if not poll.general:
                self._waiting = (poll.address, self.clock())
            return
        self.port.write(reply)
        self.counts["answered"] += 1
        self.latencies.append(self.clock() - (self._last_ours or 0.0))
        self.cpu_ns += time.thread_time_ns() - cpu0  # this thread's own work, not waits

    def _watch_host(self, now: float) -> None:
        if (self.host_present and self.host_lost_s and self._last_ours is not None
                and now - self._last_ours > self.host_lost_s):
            self.host_present = False
            self.on_host(False)

    def stats(self) -> dict[str, object]:
        """Counters (link and splitter) and the response-time percentiles in ms."""
        lat = sorted(self.latencies)

        def pct(p: float) -> float | None:
            return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 3) if lat else None

        return {**dict(self.counts), **{f"dropped_{k}": v for k, v in
                                        self.splitter.counts.items()},
                "p50_ms": pct(0.5), "p99_ms": pct(0.99), "p999_ms": pct(0.999),
                "max_ms": pct(1.0),
                "cpu_us_per_answer": round(self.cpu_ns / 1000 / self.counts["answered"], 1)
                if self.counts["answered"] else None}
