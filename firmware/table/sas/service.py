"""The SAS link of a running table: the port, one machine per seat (and the table's own
if configured), the snapshots published after every change, the requests into the inbox.

:func:`start_sas` opens the configured port (``pty`` logs ``SAS link on PATH``), builds
the board from the journal and the machines' first snapshots before the link answers
anything, and hooks :meth:`SasService.publish` behind the controller's publish, so a
snapshot follows every change on the controller's thread; the link thread only reads
the latest one.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from drivers.sas.framing import Poll
from drivers.sas.link import SasLink
from drivers.sas.machine import Machine, SeatSnapshot
from drivers.sas.ports import LinkPort, PtyPort, open_port
from drivers.sas.process import PENDING_WAIT_S, READS_COMMITTED
from drivers.sas.settings import SasSettings, own_line, port_of
from firmware.engine.inputs import CreditsIn, CreditsOut
from firmware.journal import EventCode, Record
from firmware.table.happenings import RequestHappening
from firmware.table.sas.board import _CREDITS, SasBoard
from firmware.table.sas.link_feed import LinkFeed, link_died
from firmware.table.sas.link_process import LinkChild
from firmware.table.sas.pending import CommitTells
from firmware.table.sas.requests import TableRequests
from firmware.table.sas.signature import Signer
from firmware.table.sas.takes import MarksRefused, TakeMarks, open_marks, recover

if TYPE_CHECKING:
    from firmware.table.controller import Controller

log = logging.getLogger("etg.sas")


@dataclass
class SasService:
    ctl: Controller
    board: SasBoard
    machines: dict[int, Machine]
    requests: TableRequests
    links: list[Any]  #: SasLink (thread layout) or LinkChild (process layout)
    marks: TakeMarks | None = None
    local: CommitTells = field(default_factory=CommitTells)  #: the thread layout's

    @property
    def link(self) -> Any:
        """The first line's link (the only one unless seats have lines of their own)."""
        return self.links[0]

    def publish(self) -> None:
        """On the controller's thread, after every change (the journal committed):
        new snapshots, to the machines (thread layout) or the line's process."""
        ctl = self.ctl
        gate = ctl.floor_gate
        closed = set(gate.closed_seats) | ({0} if gate.closed else set())
        live = {i + 1: int(s.credits) for i, s in enumerate(ctl.game.seats)}
        live[0] = sum(live.values())
        slot = self.marks.slot if self.marks is not None else None
        # before the snapshot is built: the commits it is known to reflect
        tags = [t.resolved() for t in self.tells()]
        snaps = self.board.snapshots(_refusals(ctl, closed), closed, live, slot)
        for link, tag in zip(self.links, tags, strict=False):
            if isinstance(link, LinkChild):
                link.feed({a: snaps[a] for a in link.addresses}, tag)
        for addr, snap in snaps.items():
            if addr in self.machines:
                self.machines[addr].snapshot = snap
        if self.machines:
            self.local.show(tags[-1])

    def tells(self) -> list[CommitTells]:
        """What each line is told of the commits (one for the thread layout's machines)."""
        return [ln.tells for ln in self.links] if not self.machines else [self.local]

    def respond(self, poll: Poll) -> bytes | None:
        if (not poll.general and poll.command in READS_COMMITTED
                and not self.local.settled(PENDING_WAIT_S)):
            for link in self.links:  # never one commit behind: the host polls again
                if poll.address in link.addresses:
                    link.counts["pending_unanswered"] += 1
            self.machines[poll.address].unanswered(poll)
            return None
        return self.machines[poll.address].respond(poll)

    def late(self, address: int) -> bytes | None:
        return self.machines[address].late()

    def stop(self) -> None:
        for link in self.links:
            link.stop()
            st = link.stats()
            if st.get("answered"):  # the timing of this run, for the bench and the log
                log.info("SAS link stats: %d answered, p50 %s ms, p99 %s ms, p999 %s ms, "
                         "max %s ms (poll's last byte to our write), link CPU %s us per "
                         "answer", st["answered"], st["p50_ms"], st["p99_ms"],
                         st["p999_ms"], st["max_ms"], st["cpu_us_per_answer"])
        if self.marks is not None:
            self.marks.close()


def _refusals(ctl: Controller, closed: set[int]) -> dict[int, tuple[str | None, str | None]]:
    """Per seat, why a transfer in / out could not be taken now (the engine's own
    query with one cent; a disabled seat takes none)."""
    t = ctl.game
    out: dict[int, tuple[str | None, str | None]] = {}
    for seat in range(1, t.nseats + 1):
        if ctl.failure:
            out[seat] = (ctl.failure, ctl.failure)
        elif seat in closed or 0 in closed:
            out[seat] = (f"seat {seat} is disabled", f"seat {seat} is disabled")
        else:
            out[seat] = (t.credits_refusal(CreditsIn(seat, 1)),
                         t.credits_refusal(CreditsOut(seat, 1)))
    out[0] = ("the table's own machine holds no credits",) * 2
    return out


def _taken(address: int, seq: int) -> RequestHappening:
    return RequestHappening("sas", {"op": "taken", "address": address, "seq": seq,
                                    "recovered": True})


def _unanswered(poll: Poll) -> bytes | None:
    return None  # until the first snapshot is in place


def _flush(links: list[LinkChild]) -> None:
    for link in links:
        link.flush()


def _tell_pending(svc: SasService, _db: object, written: list[Record],
                  deltas: Mapping[object, int]) -> None:
    """The journal's stager (before COMMIT): a commit that moves a meter, ends a round
    (games won and lost) or journals a transfer is told to each line's process as
    pending; anything else (an exception taken, a witness) changes no meter a host reads."""
    if deltas or any(r.kind == "round" or (r.kind == "event" and int(r.code or 0) in _CREDITS)
                     for r in written):
        for tells in svc.tells():
            try:
                tells.pending()
            except Exception:  # never the table's commit: the link's trouble is its own
                log.exception("SAS pending tell failed")


def _tell_committed(svc: SasService) -> None:
    for tells in svc.tells():
        tells.committed()


def _host_seen(reqs: TableRequests, seats: list[int], present: bool) -> None:
    reqs.host(present, seats)


def machine_map(s: SasSettings, seats: int) -> dict[int, int]:
    """address -> seat (0: the table)."""
    out = {s.addresses[i]: i + 1 for i in range(seats)}
    if s.table_address:
        out[s.table_address] = 0
    return out


def start_sas(s: SasSettings, ctl: Controller, *, port: LinkPort | None = None,
              signer: Signer | None = None) -> SasService:
    """Open the lines for ``ctl``'s table (``port``: a test's own, for every machine):
    one link per line, each answering the machines wired to it."""
    seats = ctl.game.nseats
    mm = machine_map(s, seats)
    lines: dict[tuple[str, int], set[int]] = {}  # (spec, which pty) -> addresses
    for a, seat in mm.items():
        spec = "test" if port is not None else port_of(s, seat)
        # each seat's own "pty" is a pty of its own; a device path named twice is one line
        which = seat if spec == "pty" and own_line(s, seat) else 0
        lines.setdefault((spec, which), set()).add(a)
    process = s.layout == "process" and (port is None or isinstance(port, PtyPort))
    opened: list[tuple[str, LinkPort | None, set[int]]] = []
    try:
        for (spec, _which), addrs in lines.items():
            if port is not None:
                opened.append((spec, port, addrs))
            elif process and spec != "pty":
                opened.append((spec, None, addrs))  # the process opens the device
            else:
                opened.append((spec, open_port(spec), addrs))
        svc = _compose(s, ctl, mm, opened, signer or Signer(), process)
    except Exception:
        for _s, p, _a in opened:
            if p is not None:
                p.close()
        raise
    for link in svc.links:
        link.start()
        p = link.port
        path = getattr(p, "path", None) or p.description
        log.info("SAS link on %s (%s)", path, ", ".join(
            f"address {a} seat {mm[a]}" if mm[a] else f"address {a} table"
            for a in sorted(link.addresses)))
    return svc


def _compose(s: SasSettings, ctl: Controller, mm: dict[int, int],
             opened: list[tuple[str, LinkPort | None, set[int]]], signer: Signer,
             process: bool) -> SasService:
    limits = ctl.requests.limits
    board = SasBoard(ctl.journal, mm, s.asset_base, limits.per_transfer, limits.per_seat)
    first = next(iter(ctl.journal.records(upto_seq=1)), None)
    try:
        marks = open_marks(getattr(ctl.journal, "path", None),
                           getattr(ctl.journal, "key", None),
                           first.hash if first is not None else None)
    except MarksRefused as exc:  # fail closed, and the audit shows why the link is down
        ctl.event(EventCode.SAS_MARKS_REFUSED, ctl.game.round_no, reason=str(exc))
        raise
    reqs = TableRequests(ctl.put, mm, {a: board.asset(a) for a in mm}, ctl.transfers,
                         signer.signature, marks, signer.ready)
    if marks is not None:  # takes the link marked that a kill -9 kept from the journal
        untaken = {a: {seq for seq, _code in q.items} for a, q in board.queues.items()}

        def take(address: int, seq: int) -> None:
            board.queues[address].take(seq)
            reqs.put(_taken(address, seq))

        n = recover(marks, untaken, take)
        if n:
            log.info("SAS: %d exception take(s) recovered from the link's marks", n)
    ctl.requests.sas_disable_on_loss = s.disable_on_host_loss
    if process:
        reqs.marks = None  # the process marks (with the slots the snapshots carry)
        svc = SasService(ctl, board, {}, reqs, [], marks)
        feed = LinkFeed(reqs, mm, signer.fresh_left)
        svc.links = [LinkChild(spec, p, addrs, interbyte_s=s.interbyte_ms / 1000,
                               host_lost_s=s.host_lost_s,
                               marks_fd=marks.fileno() if marks is not None else -1,
                               handle=feed, on_death=functools.partial(link_died, reqs),
                               priority=s.priority)
                     for spec, p, addrs in opened]
        svc.publish()
        # an answer to a request (an attendant's transfer, a bench's credits) goes out
        # once the link's process has the change: a host polling after it reads it
        ctl.before_reply.append(functools.partial(_flush, svc.links))
    else:
        machines = {a: Machine(a, SeatSnapshot(seat, board.asset(a)), reqs)
                    for a, seat in mm.items()}
        svc = SasService(ctl, board, machines, reqs, [
            SasLink(p, addrs, _unanswered, interbyte_s=s.interbyte_ms / 1000,
                    host_lost_s=s.host_lost_s, on_host=functools.partial(
                        _host_seen, reqs, sorted(mm[a] for a in addrs)))
            for _spec, p, addrs in opened if p is not None], marks)
        svc.publish()
        for link in svc.links:
            link.respond = svc.respond
            link.late = svc.late
            link.priority = s.priority
    add_stager = getattr(ctl.journal, "add_stager", None)
    if add_stager is not None:  # a host never reads a meter one commit behind
        add_stager(functools.partial(_tell_pending, svc),
                   functools.partial(_tell_committed, svc))
    before = ctl.publish

    def publish(view: Any) -> None:
        before(view)
        try:
            svc.publish()
        except Exception:  # the link's trouble never stops the table: the host
            log.exception("SAS snapshot failed")  # reads the last good snapshot

    ctl.publish = publish
    return svc
