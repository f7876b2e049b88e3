"""`etg floor serve --start-broker`: the floor's own Mosquitto, supervised.

The broker runs as a child process on the generated configuration. Before it starts, its
port must be free — else one line says so and the floor service does not start (a broker
that cannot listen would otherwise leave the floor running on nothing). Once running, it
is reaped and started again with a growing back-off if it ends, and stopped when the floor
service stops (and by the kernel if the floor service dies: :func:`start_broker`).

Its log (stderr) is read line by line and passed on labelled ``broker:``, at the level it
deserves; its per-message debug lines are dropped, except the publishes the ACL refused.
A subscription outside a client's own topics is reported too: Mosquitto accepts any
subscription and filters each message by the ACL, so the subscription itself is the only
trace of a client reading where it should not.
"""

from __future__ import annotations

import logging
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import IO

from etgcore.child import dies_with_parent, signals_held
from etgcore.errors import UserError
from firmware.floor.acl_watch import RefusalWatch
from firmware.floor.broker import start_broker
from firmware.floor.certs import FLOOR_SERVICE
from firmware.floor.cutoff import RESPONSE_TOPIC
from firmware.floor.topics import ROOT

log = logging.getLogger("etg.floor.broker")

#: seconds a broker must stay up for its restart back-off to start again from the shortest
STABLE_S = 60.0
BACKOFF_S = (1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
START_TIMEOUT_S = 10.0
#: Mosquitto's debug lines for each packet (the refused publishes are kept)
PER_PACKET = ("^[0-9]+: ((Received|Sending) (PUBLISH|PUBACK|PINGREQ|PINGRESP|SUBSCRIBE|SUBACK"
              "|CONNACK|DISCONNECT)|No will message|New connection from|\t)")  # \t: a tab
#: refused publishes (and subscriptions) of one client passed on a second; the rest counted
DENIED_PER_S = 20
#: the sieve (mawk, awk): the per-packet lines dropped; a table's refused publishes on its
#: own four topics dropped too — only a table cut off at quarantine is refused there
#: (firmware.floor.cutoff): its flood must cost the floor nothing, not even a log line;
#: any client's other refusals, its subscriptions and its connection lines (a client
#: reconnecting in a loop), at most DENIED_PER_S a second each, then one line with the count
SIEVE = r"""
function flush(t) {
  for (k in more) {
    if (k ~ /^p /)
      print t " Denied PUBLISH from " substr(k, 3) " (" more[k] \
        " more refused in the second before)"
    else
      print t " " (k ~ /^s / ? "Subscriptions" : "Connection lines") " of " substr(k, 3) \
        ": " more[k] " more in the second before, not shown"
  }
  split("", more); split("", n); last = t
}
function own_topic(  pre, rest, t, topic) {
  # the whole quoted topic, read from the left up to the line's fixed tail: exactly one
  # of the client's own four (a topic merely ending like one is not: red team r43 F4)
  pre = $1 " Denied PUBLISH from " $5 " ("
  if (index($0, pre) != 1) return 0
  rest = substr($0, length(pre) + 1)
  if (!match(rest, /^d[0-9]+, q[0-9]+, r[0-9]+, m[0-9]+, '/)) return 0
  t = substr(rest, RLENGTH + 1)
  if (!match(t, /', \.\.\. \([0-9]+ bytes\)\)$/)) return 0
  topic = substr(t, 1, RSTART - 1)
  return topic == "etg/table/" $5 "/status" || topic == "etg/table/" $5 "/online" \
    || topic == "etg/table/" $5 "/records" || topic == "etg/table/" $5 "/signature"
}
function cap(k) {
  if (++n[k] > DENIED) { more[k]++; return 1 }
  return 0
}
$1 != last { flush($1) }
/PER_PACKET/ { next }
/^[0-9]+: Denied PUBLISH from / {
  if (own_topic()) next
  if (cap("p " $5)) next
}
/^[0-9]+: [^ ]+ [0-9]+ / { if (cap("s " $2)) next }
/^[0-9]+: New client connected from / { if (cap("c " $8)) next }
/^[0-9]+: Client [^ ]+ / { if (cap("c " $3)) next }
{ print; fflush() }
""".replace("PER_PACKET", PER_PACKET.replace("/", "\\/")).replace("DENIED", str(DENIED_PER_S))


def port_problem(host: str, port: int) -> str | None:
    """Why nothing can listen on ``host:port`` now (None: it is free)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            return why_not_bound(exc)
    return None


def why_not_bound(exc: OSError) -> str:
    import errno

    if exc.errno == errno.EADDRINUSE:
        return "the port is in use"
    if exc.errno == errno.EADDRNOTAVAIL:
        return "this machine has no such address"
    if exc.errno == errno.EACCES:
        return "a port below 1024 needs root"
    return exc.strerror or str(exc)


class BrokerSupervisor:
    def __init__(self, root: Path, host: str, port: int, *, log_denied: bool = True) -> None:
        self.root, self.host, self.port = root, host, port
        self.log_denied = log_denied
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self._stopping = threading.Event()
        self._running = threading.Event()  # its log said it runs (it listens by then)
        self._last_error = ""
        self._monitor: threading.Thread | None = None
        #: each table's refusals, counted before the log's bound (the ledger's ``acl``)
        self.watch = RefusalWatch()

    def start(self) -> BrokerSupervisor:
        """Start the broker and wait until it listens; one line (UserError) if it cannot."""
        where = f"{self.host}:{self.port}"
        if (why := port_problem(self.host, self.port)) is not None:
            raise UserError(f"--broker {where}: the floor's broker cannot listen there: {why} "
                            "(another broker running? stop it, or give --broker HOST:PORT "
                            "with a free port)")
        self._spawn()
        if not self._wait_listening():
            self.stop()
            raise UserError(f"--broker {where}: the broker did not start: "
                            f"{self._last_error or 'it ended without saying why'}")
        log.info("broker listening on %s (Mosquitto, TLS, the floor's ACL)", where)
        self._monitor = threading.Thread(target=self._supervise, name="floor-broker",
                                         daemon=True)
        self._monitor.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        p = self.proc
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)

    def _spawn(self) -> None:
        self._running.clear()
        self._last_error = ""
        self.proc = start_broker(self.root, self.port, self.host, log=subprocess.PIPE,
                                 log_denied=self.log_denied)
        assert self.proc.stderr is not None
        stream: IO[bytes] = self.proc.stderr
        awk = shutil.which("mawk") or shutil.which("awk")
        if self.log_denied and awk:
            # the debug log's per-packet lines (a few per message) are dropped by awk,
            # so that reading them costs the floor service nothing
            with signals_held():
                sieve = subprocess.Popen([awk, *(["-W", "interactive"] if "mawk" in awk
                                                 else []), SIEVE],
                                         stdin=stream, stdout=subprocess.PIPE,
                                         preexec_fn=dies_with_parent, process_group=0)
            stream.close()
            assert sieve.stdout is not None
            stream = sieve.stdout
        threading.Thread(target=self._read, args=(stream,), name="broker-log",
                         daemon=True).start()

    def _wait_listening(self) -> bool:
        """Mosquitto logs "running" once its listeners are open (a test connection would
        only add a failed TLS handshake to its log)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._running.wait(0.05):
                return True
            if self.proc is None or self.proc.poll() is not None:
                time.sleep(0.1)  # let the reader take its last words
                return False
        return False

    def _supervise(self) -> None:
        """Reap the broker; start it again (back-off) until the floor service stops. This
        thread started it, so it lives as long as the broker should (parent-death signal)."""
        failures = 0
        while not self._stopping.is_set():
            assert self.proc is not None
            started = time.monotonic()
            code = self.proc.wait()
            if self._stopping.is_set():
                return
            if time.monotonic() - started > STABLE_S:
                failures = 0
            delay = BACKOFF_S[min(failures, len(BACKOFF_S) - 1)]
            failures += 1
            log.error("the broker ended (exit %s%s); starting it again in %.0f s", code,
                      f": {self._last_error}" if self._last_error else "", delay)
            if self._stopping.wait(delay):
                return
            self.restarts += 1
            try:
                self._spawn()
            except (OSError, UserError) as exc:
                log.error("the broker could not be started again: %s", exc)

    def _read(self, stream: IO[bytes]) -> None:
        """Label and log the broker's lines; until it runs, hold them: a broker that cannot
        start is one line (its last error, in the refusal), not its whole start-up."""
        held: list[tuple[int, str]] = []
        budget = LineBudget()
        for raw in stream:
            line = raw.decode("utf-8", "replace").rstrip()
            level, text = judge(line)
            if level and self._running.is_set():
                self.watch.saw(text, time.monotonic())
                for lv, t in budget.admit(level, text, time.monotonic()):
                    log.log(lv, "broker: %s", t)
                continue
            if level >= logging.ERROR and not (self._last_error.startswith("Error")
                                               and text.startswith("OpenSSL")):
                self._last_error = text  # Mosquitto's own words before OpenSSL's details
            if not level:
                continue
            if self._running.is_set() or self.proc is None:
                log.log(level, "broker: %s", text)
                continue
            held.append((level, text))
            if text.startswith("mosquitto version") and text.endswith(" running"):
                for lv, t in held:
                    log.log(lv, "broker: %s", t)
                held = []
                self._running.set()


#: broker lines of one kind (one client's refused publishes, one error's text) logged a
#: minute, and of all kinds; the rest counted, one line at the minute's end
KIND_LINES_PER_MINUTE = 10
LINES_PER_MINUTE = 300


class LineBudget:
    """The broker's log, bounded: a table whose publishes the ACL refuses, or anyone
    sending junk to the port, adds at most :data:`KIND_LINES_PER_MINUTE` lines a minute of
    each kind and :data:`LINES_PER_MINUTE` in all (the red team's 82,000 lines in 10 s)."""

    def __init__(self) -> None:
        self.minute = -1
        self.kinds: dict[str, int] = {}
        self.total = 0
        self.dropped: dict[str, int] = {}

    def admit(self, level: int, text: str, now: float) -> list[tuple[int, str]]:
        """The lines to log for this one (none, it, or first the last minute's counts)."""
        out: list[tuple[int, str]] = []
        m = int(now // 60)
        if m != self.minute:
            out += [(logging.WARNING, f"{n} more lines like '{k}' in the last minute not "
                     "logged") for k, n in sorted(self.dropped.items(), key=lambda kv: -kv[1])[:20]]
            if len(self.dropped) > 20:
                out.append((logging.WARNING, f"and {len(self.dropped) - 20} more kinds"))
            self.minute, self.kinds, self.total, self.dropped = m, {}, 0, {}
        k = _kind(text)
        if self.kinds.get(k, 0) >= KIND_LINES_PER_MINUTE or self.total >= LINES_PER_MINUTE:
            if k in self.dropped or len(self.dropped) < 10_000:
                self.dropped[k] = self.dropped.get(k, 0) + 1
            return out
        self.kinds[k] = self.kinds.get(k, 0) + 1
        self.total += 1
        return [*out, (level, text)]


def _kind(text: str) -> str:
    """What makes two broker lines the same kind: a refused publish's client, a bad
    subscription's client, else the text without its numbers (ports, addresses, ids)."""
    if text.startswith("refused by the ACL: Denied PUBLISH from "):
        return "refused publishes from " + (text.split(" ") + [""] * 8)[7][:64]
    if " subscribed to " in text:
        return "refused subscriptions of " + text.split(" ")[0][:64]
    return "".join(c for c in text if not c.isdigit())[:60]


def judge(line: str) -> tuple[int, str]:
    """A Mosquitto log line → (level, text) to log, level 0 to drop it."""
    head, sep, rest = line.partition(": ")
    text = rest if sep and head.isdigit() else line
    if "should not be run as root" in text:
        return 0, text  # the floor chose root on purpose: its keys are root's alone
    if text.startswith("Denied PUBLISH"):
        return logging.WARNING, f"refused by the ACL: {text}"
    if text.startswith(("Error", "OpenSSL Error")):
        return logging.ERROR, text
    if text.startswith("Warning"):
        return logging.WARNING, text
    if "already connected, closing old connection" in text:
        return logging.WARNING, text
    sub = _subscription(text)
    if sub is not None:
        return sub
    if text.startswith(("Received ", "Sending ", "New connection", "No will", "\t",
                        "Saving in-memory database")):
        return 0, text  # the debug log's per-packet lines
    return logging.INFO, text


def _subscription(text: str) -> tuple[int, str] | None:
    """``<client> <qos> <filter>`` of the subscribe log: reported when the filter is
    outside what the client may read. The filter is the rest of the line: it may hold
    spaces (a filter with one was not seen as a subscription at all: red team h43 F7)."""
    parts = text.split(" ", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    client, qos, topic = parts
    if client == FLOOR_SERVICE:
        allowed = topic.startswith((f"{ROOT}/table/", f"{ROOT}/ack/")) \
            or topic == RESPONSE_TOPIC
    else:
        allowed = topic in (f"{ROOT}/command/{client}", f"{ROOT}/ack/{client}")
    if allowed and qos != "128":
        return 0, text
    return logging.WARNING, (f"{client} subscribed to {topic}: outside what it may read "
                             "(the ACL delivers nothing of it)")


def run_until_stopped(supervisor: BrokerSupervisor) -> int:
    """`etg floor broker`: the supervised broker until SIGTERM or Ctrl-C."""
    import signal

    stop = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    supervisor.start()
    try:
        while not stop.wait(1.0):
            pass
    finally:
        supervisor.stop()
    return 0
