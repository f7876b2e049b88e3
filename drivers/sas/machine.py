"""One gaming machine on the SAS line: the answer to each supported poll for its address.

A :class:`Machine` lives on the link thread. It answers reads (meters, exceptions, AFT
status) from the :class:`SeatSnapshot` the table last published — never asking the
controller — and hands everything that changes the table (an exception taken, a disable,
an enable, a transfer) to :class:`MachineRequests`, which puts it into the controller's
inbox and returns at once. At most one request of each kind is in flight per address, so
a flooding host cannot fill the inbox. Malformed polls get no answer (counted by the link).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from drivers.sas import codes as C
from drivers.sas.aft import AftRequest, AftResult, parse_aft, result_data
from drivers.sas.framing import Poll, answer, bcd, from_bcd

#: a general poll repeated sooner than this after our answer is the host's retry after
#: its response timeout (it did not get the answer: implied NACK), answered once more; a
#: host's own cycle polls one machine 40 ms or more apart
RETRY_S = 0.035


@dataclass(frozen=True)
class SeatSnapshot:
    """What a host may read of one machine, as the table published it last."""

    seat: int  #: 0: the table itself
    asset: int
    meters: Mapping[int, int] = field(default_factory=dict)  #: SAS meter code -> value
    #: (journal sequence number, exception code), oldest first, not yet taken
    exceptions: tuple[tuple[int, int], ...] = ()
    door_opens: int = 0
    power_resets: int = 0
    enabled: bool = True
    #: why a transfer to / from the seat cannot be taken now (None: it can)
    refuse_in: str | None = None
    refuse_out: str | None = None
    transfer_limit: int = 0
    max_credits: int = 0  #: the most a seat may hold (0: no limit known)
    #: what the seat holds now, stakes of the round in play taken off (what can move)
    live_credits: int = 0
    last_aft: AftResult | None = None  #: the last journaled AFT transfer of the seat
    #: the marks-file slot of each exception above (the link process writes it when the
    #: host takes one; the table computed it, the process holds no key)
    take_slots: tuple[bytes, ...] = ()
    #: the seat's recent journaled AFT transfers: transaction id -> (type, cents)
    aft_known: Mapping[bytes, tuple[int, int]] = field(default_factory=dict)


class MachineRequests(Protocol):
    """What a machine asks of the table; every call returns at once."""

    def taken(self, address: int, seq: int) -> None: ...
    def enable(self, address: int, on: bool) -> None: ...
    def transfer(self, address: int, req: AftRequest) -> None: ...
    def transfer_done(self, address: int, req: AftRequest) -> AftResult | None: ...
    def applied(self, address: int, req: AftRequest) -> AftResult | None: ...
    def signature(self, seed: int) -> int | None: ...
    def signature_ready(self, seed: int) -> int | None: ...


class Machine:
    def __init__(self, address: int, snapshot: SeatSnapshot, requests: MachineRequests,
                 game_number: int = 1) -> None:
        self.address = address
        self.snapshot = snapshot  # replaced whole by the table's thread (one assignment)
        self.requests = requests
        self.game_number = game_number
        self._offered = 0  # the newest exception seq answered
        #: the exception last answered and when, until the host's next poll acknowledges it
        self._unacked: tuple[int, int, float] | None = None
        self._resent = False
        self.clock = time.monotonic
        self._aft: tuple[AftRequest, AftResult | None] | None = None
        self.registered: tuple[int, bytes, bytes] | None = None
        self.reg_status = 0x80  # not registered
        self._sig_seed: int | None = None  # a 21 not answered yet: answered late if ready

    # -- dispatch ----------------------------------------------------------------------

    def unanswered(self, poll: Poll) -> None:
        """A long poll left unanswered (a commit pending: the link answers no meter from
        before it): still the host's implied acknowledgement of the exception it was
        given last, as the host counts it taken (a kill -9 next must not offer it again)."""
        self._sig_seed = None
        if self._unacked is not None and not poll.general:
            seq = self._unacked[0]
            self._unacked = None
            self.requests.taken(self.address, seq)

    def respond(self, poll: Poll) -> bytes | None:
        now = self.clock()
        self._sig_seed = None  # any poll: the host is not waiting for a late signature
        if self._unacked is not None:
            seq, code, t = self._unacked
            if poll.general and now - t < RETRY_S and not self._resent:
                self._resent = True  # the same poll again at once: the host did not get
                return bytes((code,))  # it (implied NACK); once, never in a loop
            self._unacked = None  # any other poll, or the next cycle's: implied ACK
            self.requests.taken(self.address, seq)
        if poll.general:
            return bytes((self._next_exception(now),))
        cmd = poll.command
        assert cmd is not None
        if cmd in (0x01, 0x02):
            # always handed on (the snapshot may be a moment old): the controller
            # journals only a change, and one request of a kind is in flight at a time
            self.requests.enable(self.address, cmd == 0x02)
            return bytes((self.address,))  # the protocol's acknowledgement
        if cmd in C.SINGLE_METER_POLLS:
            return self._answer(cmd, bcd(self._meter(C.SINGLE_METER_POLLS[cmd]), 4))
        if cmd in C.METER_SET_POLLS:
            return self._answer(cmd, b"".join(bcd(self._meter(c), 4)
                                              for c in C.METER_SET_POLLS[cmd]))
        if cmd == 0x1F:
            return self._answer(cmd, C.game_configuration())
        if cmd == 0x21:
            return self._signature(poll.data)
        if cmd == 0x2F:
            return self._selected(poll.data)
        if cmd in (0x6F, 0xAF):
            return self._extended(cmd, poll.data)
        if cmd == 0x72:
            return self._aft_poll(poll.data)
        if cmd == 0x73:
            return self._register(poll.data)
        if cmd == 0x74:
            return self._lock_status(poll.data)
        return None

    def _answer(self, cmd: int, data: bytes) -> bytes:
        return answer(self.address, cmd, data)

    # -- exceptions --------------------------------------------------------------------

    def _next_exception(self, now: float) -> int:
        """The oldest exception not yet answered. The host's next poll takes it (the
        table journals that, so after a restart it is not offered again); the same
        general poll repeated within :data:`RETRY_S` gets it once more."""
        for seq, code in self.snapshot.exceptions:
            if seq > self._offered:
                self._offered = seq
                self._unacked, self._resent = (seq, code, now), False
                return code
        return C.NO_EXCEPTION

    # -- meters ------------------------------------------------------------------------

    def _meter(self, code: int) -> int:
        snap = self.snapshot
        if code == C.DOOR_OPENS:
            return snap.door_opens
        if code == C.POWER_RESETS:
            return snap.power_resets
        return int(snap.meters.get(code, 0))

    def _game_ok(self, data: bytes) -> bool:
        try:
            game = from_bcd(data[:2])
        except ValueError:
            return False
        return len(data) >= 2 and game in (0, self.game_number)

    def _selected(self, data: bytes) -> bytes | None:
        """2F: selected meters, one-byte codes, four-byte BCD values; codes we do not
        keep are left out of the answer."""
        if not self._game_ok(data) or len(data) > 2 + C.MAX_SELECTED:
            return None
        out = bytearray(data[:2])
        for code in data[2:]:
            if code in C.SUPPORTED_METERS:
                out += bytes((code,)) + bcd(self._meter(code), 4)
        return answer(self.address, 0x2F, bytes(out), variable=True)

    def _extended(self, cmd: int, data: bytes) -> bytes | None:
        """6F / AF: extended meters, two-byte codes (low byte first), each with its size."""
        body = data[2:]
        if not self._game_ok(data) or len(body) % 2 or len(body) > 2 * C.MAX_EXTENDED:
            return None
        size = 5 if cmd == 0x6F else 8
        out = bytearray(data[:2])
        for i in range(0, len(body), 2):
            code = int.from_bytes(body[i: i + 2], "little")
            if code in C.SUPPORTED_METERS:
                out += body[i: i + 2] + bytes((size,)) + bcd(self._meter(code), size)
        return answer(self.address, cmd, bytes(out), variable=True)

    # -- ROM signature -------------------------------------------------------------------

    def _signature(self, data: bytes) -> bytes | None:
        seed = int.from_bytes(data[:2], "little")
        sig = self.requests.signature(seed)
        if sig is None:
            self._sig_seed = seed  # still computing: answered late (:meth:`late`) or
            return None  # when the host asks again
        return self._answer(0x21, sig.to_bytes(2, "little"))

    def late(self) -> bytes | None:
        """The answer to the 21 poll the host is still waiting for, once computed (the
        link asks while the line stays quiet after that poll: a host that waits for the
        answer, as many do, gets it without asking again)."""
        if self._sig_seed is None:
            return None
        sig = self.requests.signature_ready(self._sig_seed)
        if sig is None:
            return None
        self._sig_seed = None
        return self._answer(0x21, sig.to_bytes(2, "little"))

    # -- AFT -----------------------------------------------------------------------------

    def _aft_poll(self, data: bytes) -> bytes | None:
        req = parse_aft(data)
        if req is None:
            return None
        if req.interrogate:
            return self._aft_answer(self._aft_status())
        snap = self.snapshot
        now = dt.datetime.now()
        status = self._aft_status()
        if status is not None and status.status == C.AFT_PENDING and self._aft is not None:
            pending = self._aft[0]
            if pending.txid != req.txid:
                return self._aft_answer(req.result(C.AFT_BUSY, now))  # one at a time
            if (pending.kind, pending.cents, pending.asset) != (req.kind, req.cents,
                                                                req.asset):
                return self._aft_answer(req.result(C.AFT_TXID_NOT_UNIQUE, now))  # F9
            return self._aft_answer(status)  # the same request again: still pending
        if req.asset == snap.asset:
            # exactly once comes first (red team F7): a transaction id the ledger holds is
            # answered with its first result whatever the seat's state now
            done = self.requests.applied(self.address, req)
            if done is not None:
                if done.status == C.AFT_FULL_SUCCESS:
                    self._aft = (req, done)
                return self._aft_answer(done)
        if req.asset != snap.asset:
            return self._aft_final(req.result(C.AFT_ASSET_MISMATCH, now), req)
        if self.registered is not None and self.reg_status == 0x01 and \
                req.regkey != self.registered[1]:
            return self._aft_final(req.result(C.AFT_REGKEY_MISMATCH, now), req)
        why = req.refusal(snap.refuse_in if req.to_machine else snap.refuse_out,
                          snap.transfer_limit) or self._credit_room(req)
        if why is not None:
            return self._aft_final(req.result(why[0], now, why[1]), req)
        self._aft = (req, None)
        self.requests.transfer(self.address, req)
        return self._aft_answer(req.result(C.AFT_PENDING, now))

    def _credit_room(self, req: AftRequest) -> tuple[int, str] | None:
        """Refused here, not by the table, when the snapshot already says no: more out
        than the seat holds, more in than it may hold (the table checks again)."""
        snap = self.snapshot
        credits = int(snap.meters.get(C.CURRENT_CREDITS, 0))
        if not req.to_machine and req.cents > snap.live_credits:
            return C.AFT_UNABLE, f"the seat holds {snap.live_credits} cents now"
        most = min(snap.max_credits or C.MAX_FOUR_BYTE, C.MAX_FOUR_BYTE)
        if req.to_machine and credits + req.cents > most:
            return C.AFT_OVER_LIMIT, f"the seat may hold at most {most} cents"
        return None

    def _aft_final(self, res: AftResult, req: AftRequest) -> bytes:
        """A refusal the machine decides itself: answered, and the last transfer a
        host's interrogation reads back."""
        self._aft = (req, res)
        return self._aft_answer(res)

    def _aft_status(self) -> AftResult | None:
        """The last transfer this machine took: final once the table answered it;
        after a restart, the last one the journal holds."""
        if self._aft is None:
            return self.snapshot.last_aft
        req, res = self._aft
        if res is None:
            res = self.requests.transfer_done(self.address, req)
            self._aft = (req, res)
        return res if res is not None else req.result(C.AFT_PENDING, dt.datetime.now())

    def _aft_answer(self, res: AftResult | None) -> bytes:
        return answer(self.address, 0x72, result_data(res, self.snapshot.asset,
                                                      self.snapshot.meters),
                      variable=True)

    def _register(self, data: bytes) -> bytes | None:
        """73: registration. Kept on the link (not journaled): a host registers again
        after a restart."""
        if not data:
            return None
        code = data[0]
        if code == 0xFF and len(data) == 1:
            pass
        elif code == 0x00 and len(data) == 1:  # the short initialize: ready, not registered
            self.registered, self.reg_status = None, 0x00
        elif code in (0x00, 0x01) and len(data) == 29:
            asset = int.from_bytes(data[1:5], "little")
            if asset != self.snapshot.asset:
                return None
            self.registered = (asset, bytes(data[5:25]), bytes(data[25:29]))
            self.reg_status = 0x01 if code == 0x01 else 0x00
        elif code == 0x80 and len(data) == 1:
            self.registered, self.reg_status = None, 0x80
        else:
            return None
        asset, key, pos = self.registered or (self.snapshot.asset, bytes(20), bytes(4))
        out = bytes((self.reg_status,)) + asset.to_bytes(4, "little") + key + pos
        return answer(self.address, 0x73, out, variable=True)

    def _lock_status(self, data: bytes) -> bytes | None:
        """74: lock and status. The table does not lock play for a host (a round is
        never held for a transfer): the answer says not locked, and what can move."""
        if len(data) != 4 or data[0] not in (0x00, 0x80, 0xFF):
            return None
        snap = self.snapshot
        avail = (0x01 if snap.refuse_in is None else 0) | (0x02 if snap.refuse_out is None
                                                             else 0)
        credits = snap.live_credits if snap.refuse_out is None else 0  # what can move now
        out = (snap.asset.to_bytes(4, "little") + bytes((0xFF, avail, 0x00, 0x00, 0x00))
               + bcd(credits, 5) + bcd(0, 5) + bcd(0, 5) + bcd(snap.transfer_limit, 5)
               + bcd(0, 4) + bcd(0, 2))
        return answer(self.address, 0x74, out, variable=True)
