"""What each SAS machine may tell a host, derived from the journal on the controller's
thread and published as one immutable snapshot per machine after every change.

The exception queue *is* the journal: each record that a host must hear of (power, tilt,
doors, a seat's game starting and ending, a transfer, the table closing) maps to an
exception for the machines it concerns, and a machine's queue is every such record after
the last one its host took (``SAS_EXCEPTION_TAKEN`` events, journaled through the inbox).
So nothing queued is lost across a kill -9, and the order is the journal's.

The meters are the journal's own (``journal.meters()``, what ``etg meters`` prints) read
after the change was committed, so a host reads exactly ``etg meters``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from drivers.sas import codes as C
from drivers.sas.aft import AftResult
from drivers.sas.machine import SeatSnapshot
from firmware.journal import EventCode, Journal, Record

#: journal events every machine hears of, and the exception each becomes
TABLE_EVENTS = {
    int(EventCode.POWER_UP): C.AC_POWER_APPLIED,
    int(EventCode.POWER_DOWN): C.AC_POWER_LOST,
    int(EventCode.TILT): C.GENERAL_TILT,
    int(EventCode.DOOR_OPEN): C.SLOT_DOOR_OPEN,
    int(EventCode.TABLE_CLOSED): C.OUT_OF_SERVICE,
}
_CREDITS = (int(EventCode.CREDITS_IN), int(EventCode.CREDITS_OUT))


#: at most this many journal records back are read for the exception queues at start
WINDOW = 200_000
#: the AFT transfers per seat a snapshot names (older repeats: the ledger, via the inbox)
KNOWN = 64
#: untaken exceptions kept per machine before new ones are lost (the overflow exception)
HARD_DEPTH = 1000


@dataclass
class _Queue:
    """One machine's untaken exceptions, oldest first. The host is shown the oldest
    :data:`~drivers.sas.codes.QUEUE_DEPTH`; beyond :data:`HARD_DEPTH` untaken (a host
    gone for days) new ones are lost and the protocol's overflow exception says so."""

    taken: int = 0
    items: list[tuple[int, int]] = field(default_factory=list)
    overflowed: bool = False

    def add(self, seq: int, code: int) -> None:
        if seq <= self.taken:
            return
        if len(self.items) >= HARD_DEPTH:
            if not self.overflowed:
                self.items.append((seq, C.BUFFER_OVERFLOW))
                self.overflowed = True
            return
        self.items.append((seq, code))

    def take(self, seq: int) -> None:
        self.taken = max(self.taken, seq)
        while self.items and self.items[0][0] <= seq:
            self.items.pop(0)
        if len(self.items) < HARD_DEPTH:
            self.overflowed = False

    def shown(self) -> tuple[tuple[int, int], ...]:
        return tuple(self.items[: C.QUEUE_DEPTH])


class SasBoard:
    """The machines' snapshots for ``seats`` (address -> seat; seat 0: the table)."""

    def __init__(self, journal: Journal, machines: Mapping[int, int], asset_base: int,
                 transfer_limit: int, max_credits: int = 0, *,
                 record_history: bool = False) -> None:
        self.journal = journal
        self.machines = dict(machines)
        self.asset_base = asset_base
        self.transfer_limit = transfer_limit
        self.max_credits = max_credits
        #: (address, seq, code) of every exception queued since record 1, when asked (the
        #: soak's check; the whole journal is read then)
        self.history: list[tuple[int, int, int]] | None = [] if record_history else None
        self.queues = {a: _Queue() for a in self.machines}
        self.won: dict[int, int] = {}
        self.lost: dict[int, int] = {}
        self.door_opens = 0
        self.power_resets = 0
        self.last_aft: dict[int, AftResult] = {}
        #: seat -> its last :data:`KNOWN` AFT transfers (txid -> (type, cents)): what
        #: the link process answers a host's repeat of one from
        self.known: dict[int, dict[bytes, tuple[int, int]]] = {}
        self._in_game: set[int] = set()
        self.last_seq = 0
        self._start()

    def asset(self, address: int) -> int:
        return self.asset_base + self.machines[address]

    # -- reading the journal ---------------------------------------------------------------

    def _start(self) -> None:
        """Read what the snapshots need without parsing the whole journal: the counts and
        the last transfers from the records that carry them (filtered in SQLite), then
        every record after the oldest of the machines' last takes (at most
        :data:`WINDOW` records back; older untaken exceptions are reported lost)."""
        j = self.journal
        if self.history is not None:  # the soak's check: every exception, from record 1
            self._fold(j.records())
            return
        latest: dict[int, int] = {}
        floor = max(0, j.last_seq - WINDOW)
        for r in j.records(kinds=["event"], codes=[int(EventCode.SAS_EXCEPTION_TAKEN)],
                           newest_first=True, since_seq=floor):
            addr = r.body.get("address")
            if addr in self.queues and addr not in latest:
                latest[addr] = int(r.body.get("seq", 0))
                if len(latest) == len(self.queues):
                    break
        start = max(floor, min((latest.get(a, 0) for a in self.queues), default=0))
        for addr, q in self.queues.items():
            q.taken = latest.get(addr, 0)
            if q.taken < floor:  # untaken exceptions older than the window: lost
                q.items.append((floor, C.BUFFER_OVERFLOW))
        for r in j.records(kinds=["round"], upto_seq=start):
            self._round(r, queue=False)
        for r in j.records(kinds=["event"], upto_seq=start, codes=[
                int(EventCode.POWER_UP), int(EventCode.DOOR_OPEN), *_CREDITS]):
            self._count(r)
        self.last_seq = start
        self._fold(j.records(since_seq=start))

    def _count(self, r: Record) -> None:
        """The counts and the last AFT transfer of one event (no exception queued)."""
        code = int(r.code or 0)
        if code == int(EventCode.POWER_UP):
            self.power_resets += 1
        elif code == int(EventCode.DOOR_OPEN):
            self.door_opens += 1
        elif code in _CREDITS and isinstance(r.body.get("sas_txid"), str):
            seat = int(r.body["seat"])
            kind = C.AFT_IN_HOUSE_TO_MACHINE if code == _CREDITS[0] else C.AFT_IN_HOUSE_TO_HOST
            when = dt.datetime.fromtimestamp(r.ts_ns / 1e9)
            txid = bytes.fromhex(r.body["sas_txid"])
            self.last_aft[seat] = AftResult(C.AFT_FULL_SUCCESS, kind, int(r.body["cents"]),
                                            txid, when)
            known = self.known.setdefault(seat, {})
            known.pop(txid, None)
            known[txid] = (kind, int(r.body["cents"]))
            while len(known) > KNOWN:
                known.pop(next(iter(known)))

    def _fold(self, records: Iterable[Record]) -> None:
        for r in records:
            self.last_seq = r.seq
            if r.kind == "event":
                self._event(r)
            elif r.kind == "round":
                self._round(r)
            elif r.kind == "input":
                self._input(r)

    def _to(self, seats: Iterable[int] | None, seq: int, code: int) -> None:
        """Queue ``code`` for the machines of ``seats`` (None: every machine); the
        table's own machine hears of every seat's."""
        wanted = None if seats is None else set(seats)
        for addr, seat in self.machines.items():
            if wanted is None or seat == 0 or seat in wanted:
                self.queues[addr].add(seq, code)
                if self.history is not None:
                    self.history.append((addr, seq, code))

    def _event(self, r: Record) -> None:
        code = int(r.code or 0)
        if code == int(EventCode.SAS_EXCEPTION_TAKEN):
            addr = r.body.get("address")
            if addr in self.queues:
                self.queues[addr].take(int(r.body.get("seq", 0)))
            return
        self._count(r)
        if code in TABLE_EVENTS:
            self._to(None, r.seq, TABLE_EVENTS[code])
        elif code in _CREDITS and isinstance(r.body.get("sas_txid"), str):
            self._to([int(r.body["seat"])], r.seq, C.AFT_TRANSFER_COMPLETE)

    def _input(self, r: Record) -> None:
        inp: Mapping[str, Any] = r.body.get("input") or {}
        if inp.get("type") in ("wager", "side-wager") and int(inp.get("amount") or 0) > 0:
            seat = int(inp.get("seat") or 0)
            if seat not in self._in_game:
                self._in_game.add(seat)
                self._to([seat], r.seq, C.GAME_STARTED)

    def _round(self, r: Record, queue: bool = True) -> None:
        stakes = {int(k): sum(v.values()) for k, v in r.body.get("stakes", {}).items()}
        returns = {int(k): sum(v.values()) for k, v in r.body.get("returns", {}).items()}
        for seat, staked in stakes.items():
            if queue:
                self._to([seat], r.seq, C.GAME_ENDED)
            if r.body.get("state") != "voided":
                book = self.won if returns.get(seat, 0) > staked else self.lost
                book[seat] = book.get(seat, 0) + 1
        if r.body.get("state") != "voided":  # the table's machine: one game a round
            # (its games played are the rounds), won when the round paid back more
            book = self.won if sum(returns.values()) > sum(stakes.values()) else self.lost
            book[0] = book.get(0, 0) + 1
        self._in_game.clear()

    # -- the snapshot ----------------------------------------------------------------------

    def snapshots(self, refusals: Mapping[int, tuple[str | None, str | None]],
                  closed: set[int], live: Mapping[int, int] | None = None,
                  slot: Callable[[int, int], bytes] | None = None
                  ) -> dict[int, SeatSnapshot]:
        """Fold what the journal got since the last call, then one snapshot per machine.
        ``refusals``: seat -> why a transfer in / out cannot be taken now; ``closed``:
        the seats taking no wager (0: the whole table)."""
        self._fold(self.journal.records(since_seq=self.last_seq))
        raw = self.journal.meters()
        out = {}
        for addr, seat in self.machines.items():
            out[addr] = SeatSnapshot(
                seat=seat, asset=self.asset(addr), meters=sas_meters(raw, seat, self),
                exceptions=self.queues[addr].shown(), door_opens=self.door_opens,
                power_resets=self.power_resets,
                enabled=not ({seat, 0} & closed),
                refuse_in=refusals.get(seat, (None, None))[0],
                refuse_out=refusals.get(seat, (None, None))[1],
                transfer_limit=self.transfer_limit, max_credits=self.max_credits,
                live_credits=(live or {}).get(seat, 0),
                last_aft=self.last_aft.get(seat),
                take_slots=tuple(slot(addr, seq) for seq, _c in self.queues[addr].shown())
                if slot is not None else (),
                aft_known=dict(self.known.get(seat, {})))
        return out


def sas_meters(raw: Mapping[tuple[str, int, str], int], seat: int,
               board: SasBoard) -> dict[int, int]:
    """The journal's meters of ``seat`` (0: the table) as SAS meter codes."""
    def m(name: str) -> int:
        return int(raw.get((name, seat, ""), 0))

    won, lost = board.won.get(seat, 0), board.lost.get(seat, 0)  # seat 0: the table's
    return {
        C.COIN_IN: m("wagered"), C.COIN_OUT: m("paid"), C.JACKPOT: 0,
        C.HANDPAID_CANCELLED: 0, C.CANCELLED: m("credits_out"),
        C.GAMES_PLAYED: m("games_played"), C.GAMES_WON: won, C.GAMES_LOST: lost,
        C.CURRENT_CREDITS: m("credits"), C.ELECTRONIC_IN: m("credits_in"),
        C.ELECTRONIC_OUT: m("credits_out"), C.TOTAL_WON: m("paid"),
        C.TOTAL_DROP: m("credits_in"),
    }
