"""The SAS link in a process of its own: its own interpreter, its own GIL, one thread.

Why a process: in the table's process the link thread's answer is quick (< 2 ms) but the
poll waits before the thread gets to read it (the GIL held by rendering and journaling,
and the thread's wake-up), so at load a host saw p99 17-36 ms against the protocol's
20 ms. Here the only Python thread of the process waits on the port and the snapshot
channel with one ``select``, so a poll is read the moment it is whole.

What the process holds: the port (a pty's ends passed from the table, which keeps them
so the path a host opened survives a restart of this process; a UART opened here), the
machines of its line (:class:`drivers.sas.machine.Machine`) and the last snapshot the
table sent. It imports only ``drivers.sas`` and the standard library, and its
environment is cleared by the table (no key, no journal, no secret reaches it).

The channel (two pipes, :mod:`multiprocessing.connection` framing):

- table -> link (pickled, the table is trusted here): ``("snap", {address: SeatSnapshot})``
  after every committed change; ``("sig", seed, value, fresh_s)`` a ROM signature computed;
  ``("result", address, txid, status, why)`` a transfer's final status; ``("ping", n)``
  (answered ``pong`` behind every request sent before it); ``("stop",)``.
- link -> table (JSON, one strict schema on the table's side: this process faces the
  host): ``taken``, ``enable``, ``transfer`` (the 72 poll's fields, checked again by the
  table), ``signature``, ``host``, ``stats``.

A take is marked in the marks file (its fd passed by the table) before the answer that
follows the acknowledging poll goes out, with the slot the table computed and sent in the
snapshot (the process never holds the key). Started again after a kill, the process
believes a slot that equals one of its snapshot's slots: that exception is not offered
again and its take is sent once more (``recovered``).

Dies with the table: ``PR_SET_PDEATHSIG`` (SIGKILL), and EOF on the snapshot pipe.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime as dt
import json
import mmap
import os
import select
import signal
import struct
import sys
import time
from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import Any

from drivers.sas import codes as C
from drivers.sas.aft import AftRequest, AftResult
from drivers.sas.framing import Poll
from drivers.sas.link import SasLink, raise_priority
from drivers.sas.machine import Machine, SeatSnapshot
from drivers.sas.ports import LinkPort, PtyPort, UartPort

#: one slot of the marks file per address: 8 bytes of record number, 32 of MAC
MARK_SLOT = 40
#: the link's counters go to the table at most this often (when they changed)
STATS_EVERY_S = 0.1
#: a flood (a host writing polls faster than they can be answered, e.g. one that never
#: reads its answers): after this long busy without once waiting for bytes, the process
#: sleeps YIELD_S, so it never runs the RLIMIT_RTTIME guard's 200 ms without blocking
#: (which killed it: exit -24, restarted, journaled, every few seconds) and, at SCHED_FIFO,
#: leaves its core to the table a part of the time; an honest host's polls never get here
BUSY_S = 0.01
YIELD_S = 0.002
PR_SET_PDEATHSIG = 1
#: the polls answered only from a snapshot with no commit pending (meters, credits, a
#: transfer's status); and how long such a poll waits for that snapshot before it is
#: left unanswered (the host polls again): well inside the protocol's 20 ms
READS_COMMITTED = frozenset((*C.SINGLE_METER_POLLS, *C.METER_SET_POLLS, 0x2F, 0x6F, 0xAF,
                             0x72, 0x74))
PENDING_WAIT_S = 0.008


class _PassedPty:
    """A pseudo-terminal the table opened, its two ends passed as fds."""

    has_wakeup = False

    def __init__(self, master: int, slave: int, path: str) -> None:
        self.master, self._slave, self.path = master, slave, path
        os.set_blocking(master, False)
        self.description = f"pty {path}"

    fileno = PtyPort.fileno
    read = PtyPort.read
    write = PtyPort.write
    flush_stale = PtyPort.flush_stale
    close = PtyPort.close
    tx_dropped = 0


class ChannelRequests:
    """:class:`drivers.sas.machine.MachineRequests` over the pipe to the table."""

    def __init__(self, out: Connection, marks_fd: int) -> None:
        self.out = out
        self.marks_fd = marks_fd
        self.snaps: dict[int, SeatSnapshot] = {}
        self.results: dict[tuple[int, bytes], tuple[int, str]] = {}
        self.sigs: dict[int, tuple[int, float]] = {}
        self._sig_asked: dict[int, float] = {}
        self._enable_sent: dict[tuple[int, bool], tuple[float, SeatSnapshot | None]] = {}

    def send(self, msg: Mapping[str, Any]) -> None:
        with contextlib.suppress(OSError):  # the table gone: EOF ends this process
            self.out.send_bytes(json.dumps(msg, separators=(",", ":")).encode())

    def _slot(self, address: int, seq: int) -> bytes | None:
        snap = self.snaps.get(address)
        if snap is None:
            return None
        for (s, _code), slot in zip(snap.exceptions, snap.take_slots, strict=False):
            if s == seq:
                return slot
        return None

    def taken(self, address: int, seq: int) -> None:
        slot = self._slot(address, seq)
        if self.marks_fd >= 0 and slot is not None and len(slot) == MARK_SLOT:
            with contextlib.suppress(OSError):  # the journal's take below still comes
                os.pwrite(self.marks_fd, slot, address * MARK_SLOT)
        self.send({"op": "taken", "address": address, "seq": seq})

    def recover(self, machines: Mapping[int, Machine]) -> None:
        """After a restart: a slot equal to one this snapshot offers was marked by the
        process before it died; that take is sent again and not offered again."""
        if self.marks_fd < 0:
            return
        for address, m in machines.items():
            try:
                have = os.pread(self.marks_fd, MARK_SLOT, address * MARK_SLOT)
            except OSError:
                return
            snap = self.snaps.get(address)
            if snap is None or len(have) != MARK_SLOT:
                continue
            for (seq, _code), slot in zip(snap.exceptions, snap.take_slots, strict=False):
                if slot == have:
                    m._offered = max(m._offered, seq)
                    self.send({"op": "taken", "address": address, "seq": seq,
                               "recovered": True})

    def enable(self, address: int, on: bool) -> None:
        # a host repeating shutdown or startup sends the table one request per change of
        # the snapshot or per 0.2 s, not one per poll
        key = (address, bool(on))
        now = time.monotonic()
        snap = self.snaps.get(address)
        last = self._enable_sent.get(key)
        if last is not None and last[1] is snap and now - last[0] < 0.2:
            return
        self._enable_sent[key] = (now, snap)
        self.send({"op": "enable", "address": address, "on": bool(on)})

    def transfer(self, address: int, req: AftRequest) -> None:
        self.send({"op": "transfer", "address": address, "kind": req.kind,
                   "cents": req.cents, "asset": req.asset, "txid": req.txid.hex(),
                   "receipt": req.receipt.hex()})

    def applied(self, address: int, req: AftRequest) -> AftResult | None:
        got = self._known(address, req)
        if got is not None:
            return got
        res = self.results.get((address, req.txid))
        if res is not None and res[0] in (C.AFT_FULL_SUCCESS, C.AFT_TXID_NOT_UNIQUE):
            return req.result(res[0], dt.datetime.now())
        return None

    def _known(self, address: int, req: AftRequest) -> AftResult | None:
        snap = self.snaps.get(address)
        known = snap.aft_known.get(req.txid) if snap is not None else None
        if known is None:
            return None
        same = known == (req.kind, req.cents)
        return req.result(C.AFT_FULL_SUCCESS if same else C.AFT_TXID_NOT_UNIQUE,
                          dt.datetime.now(), "" if same else "transaction id already used")

    def transfer_done(self, address: int, req: AftRequest) -> AftResult | None:
        got = self._known(address, req)
        if got is not None:
            return got
        res = self.results.get((address, req.txid))
        if res is None:
            return None
        return req.result(res[0], dt.datetime.now(), res[1])

    def signature(self, seed: int) -> int | None:
        got = self.signature_ready(seed)
        if got is None:
            now = time.monotonic()
            if now - self._sig_asked.get(seed, -1e9) > 0.2:
                self._sig_asked[seed] = now
                while len(self._sig_asked) > 16:
                    self._sig_asked.pop(next(iter(self._sig_asked)))
                self.send({"op": "signature", "seed": seed})
        return got

    def signature_ready(self, seed: int) -> int | None:
        got = self.sigs.get(seed)
        if got is not None and time.monotonic() <= got[1]:
            return got[0]
        return None


def _die_with_parent(parent: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the table died before the line above
        os._exit(0)


def _open_port(spec: Mapping[str, Any]) -> LinkPort:
    if spec["kind"] == "pty":
        return _PassedPty(int(spec["master"]), int(spec["slave"]), str(spec["path"]))
    return UartPort(str(spec["path"]))


class LinkProcess:
    """The loop of the process: the port and the snapshot pipe in one select."""

    def __init__(self, cfg: Mapping[str, Any]) -> None:
        self.inbox = Connection(int(cfg["snap_fd"]), writable=False)
        self.reqs = ChannelRequests(Connection(int(cfg["req_fd"]), readable=False),
                                    int(cfg.get("marks_fd", -1)))
        addresses = {int(a) for a in cfg["addresses"]}
        self.machines = {a: Machine(a, SeatSnapshot(0, 0), self.reqs) for a in addresses}
        self.port = _open_port(cfg["port"])
        self.link = SasLink(self.port, addresses, self._unanswered,
                            interbyte_s=float(cfg["interbyte_s"]),
                            host_lost_s=float(cfg["host_lost_s"]), on_host=self._host)
        self.link.late = lambda a: self.machines[a].late()
        fd = int(cfg.get("pending_fd", -1))
        self._told = mmap.mmap(fd, 8, prot=mmap.PROT_READ) if fd >= 0 else None
        self.tag = 0  # the newest told commit the snapshot in hand reflects
        self._sent_stats: dict[str, object] = {}
        self._stats_at = 0.0
        self._running = True

    @staticmethod
    def _unanswered(poll: Poll) -> bytes | None:
        return None  # until the first snapshot

    def _respond(self, poll: Poll) -> bytes | None:
        # the table's newest snapshot first: one the table wrote before the host sent
        # this poll is in the pipe now, and the answer must not be older than it
        if not poll.general and poll.command in READS_COMMITTED and not self._settled():
            self.link.counts["pending_unanswered"] += 1
            self.machines[poll.address].unanswered(poll)
            return None  # never one commit behind: the host polls again
        self._drain()
        return self.machines[poll.address].respond(poll)

    def _read_told(self) -> int:
        """The page's number, read until two reads agree (an 8-byte store is not
        promised to be one write: a torn read could name a smaller number)."""
        assert self._told is not None
        got = struct.unpack_from("<Q", self._told, 0)[0]
        while (again := struct.unpack_from("<Q", self._told, 0)[0]) != got:
            got = again
        return int(got)

    def _settled(self) -> bool:
        """Every commit told pending before now is in the snapshot in hand (waiting at
        most :data:`PENDING_WAIT_S` for it). The told number is read first: a commit
        ``etg meters`` showed before this instant was told before its COMMIT, so an
        answer from here on is the journal's at an instant inside the poll's life."""
        if self._told is None:
            return True
        told = self._read_told()
        self._drain()
        if self.tag >= told:
            return True
        self.link.counts["pending_waits"] += 1
        deadline = time.monotonic() + PENDING_WAIT_S
        while self.tag < told:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self._drain(left)
        return True

    def _host(self, present: bool) -> None:
        self.reqs.send({"op": "host", "present": present})

    def _apply(self, msg: Any) -> None:
        kind = msg[0]
        if kind == "snap":
            first = not self.reqs.snaps
            if len(msg) > 2:
                self.tag = int(msg[2])
            for addr, snap in msg[1].items():
                if addr in self.machines:
                    self.reqs.snaps[addr] = snap
                    self.machines[addr].snapshot = snap
            if first:
                self.reqs.recover(self.machines)
                self.link.respond = self._respond
        elif kind == "sig":
            # answered for as long as the table's own freshness has left
            self.reqs.sigs[int(msg[1])] = (int(msg[2]), time.monotonic() + float(msg[3]))
        elif kind == "result":
            self.reqs.results[(int(msg[1]), bytes(msg[2]))] = (int(msg[3]), str(msg[4]))
            while len(self.reqs.results) > 256:
                self.reqs.results.pop(next(iter(self.reqs.results)))
        elif kind == "ping":  # after everything this process sent before it
            self._stats(time.monotonic(), force=True)
            self.reqs.send({"op": "pong", "n": int(msg[1])})
        elif kind == "stop":
            self._running = False

    def _drain(self, wait: float = 0.0) -> None:
        try:
            while self.inbox.poll(wait):
                self._apply(self.inbox.recv())
                wait = 0.0
        except (EOFError, OSError):  # the table is gone: so is its link
            os._exit(0)

    def _stats(self, now: float, force: bool = False, last: bool = False) -> None:
        if not force and now - self._stats_at < STATS_EVERY_S:
            return
        self._stats_at = now
        st = self.link.stats()
        if force or st != self._sent_stats:
            self._sent_stats = st
            self.reqs.send({"op": "stats", "stats": st,
                            "latencies": list(self.link.latencies)[-500:] if last else []})

    def run(self) -> None:
        port_fd, inbox_fd = self.port.fileno(), self.inbox.fileno()
        idle_at = time.monotonic()  # when the loop last waited for something
        while self._running:
            try:
                ready, _w, _x = select.select([port_fd, inbox_fd], [], [], 0.0)
                now = time.monotonic()
                if not ready:  # nothing there: wait (a blocking call)
                    idle_at = now
                    ready, _w, _x = select.select([port_fd, inbox_fd], [], [], 0.05)
                elif now - idle_at > BUSY_S:  # busy all along: a flood; block a moment
                    self.link.counts["flood_yields"] += 1
                    time.sleep(YIELD_S)
                    idle_at = time.monotonic()
                if inbox_fd in ready:
                    self._drain()
                self.link.step(0.0)
                self._stats(time.monotonic())
            except Exception as exc:  # counted, like the link thread; never dies of one
                self.link.counts["internal_error"] += 1
                print(f"SAS link process: {type(exc).__name__}: {exc}", file=sys.stderr)
                time.sleep(0.01)
        self._stats(time.monotonic(), force=True, last=True)


def main() -> None:
    cfg = json.loads(sys.stdin.readline())
    _die_with_parent(int(cfg["parent"]))
    proc = LinkProcess(cfg)
    granted = raise_priority(realtime=True) if cfg.get("priority") == "raised" else "normal"
    print(f"ready {granted}", flush=True)
    proc.run()


if __name__ == "__main__":
    main()
