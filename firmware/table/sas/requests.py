"""The machines' requests, from the link thread into the controller's inbox.

Every call returns at once: the link must answer the next poll within the protocol's
deadline. At most one request of each kind is in flight per machine (a flooding host
fills nothing), and a transfer's outcome is read back without waiting: from the reply the
controller put on its queue, or from the transfer ledger (which survives a restart).
"""

from __future__ import annotations

import datetime as dt
import queue
import threading
import time
from collections.abc import Callable, Mapping

from drivers.sas import codes as C
from drivers.sas.aft import AftRequest, AftResult
from firmware.table.happenings import Happening, RequestHappening
from firmware.table.requests.transfers import TransferLedger
from firmware.table.sas.takes import TakeMarks

Reply = queue.Queue[tuple[bool, str]]

#: a host's startup sooner than this after the machine's last shutdown or startup waits
#: until then (the latest wins; a shutdown is never held: fail closed), so that a host
#: toggling a seat journals at most one disable and one enable every this many seconds
ENABLE_HOLDOFF_S = 2.0


def ledger_id(asset: int, txid: bytes) -> str:
    """The transfer ledger's id of a host's transaction (the same ledger as the
    attendant's transfers: one id, applied at most once)."""
    return f"sas:{asset}:{txid.hex()}"


class TableRequests:
    """:class:`drivers.sas.machine.MachineRequests` for the table's machines."""

    def __init__(self, put: Callable[[Happening], None], machines: Mapping[int, int],
                 assets: Mapping[int, int], ledger: TransferLedger,
                 signature: Callable[[int], int | None],
                 marks: TakeMarks | None = None,
                 signature_ready: Callable[[int], int | None] | None = None) -> None:
        self.put = put
        self.marks = marks  # the takes marked before the acknowledging poll is answered
        self.machines = dict(machines)  # address -> seat
        self.assets = dict(assets)
        self.ledger = ledger
        self._signature = signature
        self._signature_ready = signature_ready or (lambda seed: None)
        self._inflight: dict[tuple[int, str], Reply] = {}
        self._transfers: dict[tuple[int, bytes], tuple[Reply, AftRequest]] = {}
        self.dropped = 0  # requests not sent because one of the kind was in flight
        self.held_enables = 0  # startups held for ENABLE_HOLDOFF_S (a toggling host)
        self._changed: dict[int, float] = {}  # address -> its last shutdown or startup
        self._held: dict[int, threading.Timer] = {}  # address -> its held startup
        self._lock = threading.Lock()

    def _busy(self, key: tuple[int, str]) -> bool:
        q = self._inflight.get(key)
        if q is not None and q.empty():
            self.dropped += 1
            return True
        return False

    def _send(self, key: tuple[int, str], args: dict[str, object]) -> Reply:
        reply: Reply = queue.Queue(maxsize=1)
        self._inflight[key] = reply
        self.put(RequestHappening("sas", args, reply))
        return reply

    def taken(self, address: int, seq: int) -> None:
        # not coalesced away: each take must reach the journal, and there is one per
        # exception the table itself produced (bounded by play, not by the host)
        if self.marks is not None:
            try:
                self.marks.mark(address, seq)  # before the answer: a kill -9 keeps it
            except OSError:  # the journal's take below still comes; only the window opens
                self.marks = None
        self.put(RequestHappening("sas", {"op": "taken", "address": address, "seq": seq}))

    def enable(self, address: int, on: bool) -> None:
        with self._lock:
            now = time.monotonic()
            wait = self._changed.get(address, -1e9) + ENABLE_HOLDOFF_S - now
            if on and wait > 0:  # held: carried out when the hold-off ends
                if address not in self._held:
                    self.held_enables += 1
                    t = threading.Timer(wait, self._held_enable, (address,))
                    t.daemon = True
                    self._held[address] = t
                    t.start()
                return
            held = self._held.pop(address, None)  # a shutdown cancels a held startup
            if held is not None:
                held.cancel()
            self._changed[address] = now
            self._enable(address, on)

    def _held_enable(self, address: int) -> None:
        with self._lock:
            if self._held.pop(address, None) is None:
                return  # cancelled by a shutdown meanwhile
            self._changed[address] = time.monotonic()
            self._enable(address, True)

    def _enable(self, address: int, on: bool) -> None:
        key = (address, "enable" if on else "disable")
        if not self._busy(key):
            self._send(key, {"op": key[1], "address": address,
                             "seat": self.machines[address]})

    def transfer(self, address: int, req: AftRequest) -> None:
        if self._busy((address, "transfer")):
            return
        seat = self.machines[address]
        reply = self._send((address, "transfer"), {
            "op": "transfer", "address": address, "seat": seat,
            "kind": "credits-in" if req.to_machine else "credits-out", "cents": req.cents,
            "id": ledger_id(self.assets[address], req.txid), "txid": req.txid.hex(),
            "asset": self.assets[address], "receipt": req.receipt.hex()})
        self._transfers[(address, req.txid)] = (reply, req)
        while len(self._transfers) > 64:
            self._transfers.pop(next(iter(self._transfers)))

    def applied(self, address: int, req: AftRequest) -> AftResult | None:
        """The first result of a transaction id the ledger holds (81 when it moved
        another amount or the other way), or None: never applied."""
        seat = self.machines[address]
        kind = "credits-in" if req.to_machine else "credits-out"
        found = self.ledger.lookup(ledger_id(self.assets[address], req.txid))
        if found is None:
            return None
        same = (found["kind"], found["seat"], found["cents"]) == (kind, seat, req.cents)
        return req.result(C.AFT_FULL_SUCCESS if same else C.AFT_TXID_NOT_UNIQUE,
                          dt.datetime.now())

    def transfer_done(self, address: int, req: AftRequest) -> AftResult | None:
        now = dt.datetime.now()
        seat = self.machines[address]
        kind = "credits-in" if req.to_machine else "credits-out"
        applied = self.ledger.lookup(ledger_id(self.assets[address], req.txid))
        if applied is not None:
            same = (applied["kind"], applied["seat"], applied["cents"]) == (kind, seat,
                                                                          req.cents)
            if same:
                return req.result(C.AFT_FULL_SUCCESS, now)
            return req.result(C.AFT_TXID_NOT_UNIQUE, now, "transaction id already used")
        sent = self._transfers.get((address, req.txid))
        if sent is None:
            return None
        reply, _req = sent
        try:
            ok, why = reply.get_nowait()
        except queue.Empty:
            return None  # the controller has not handled it yet: pending
        reply.put((ok, why))  # keep it for the next interrogation
        return req.result(C.AFT_FULL_SUCCESS if ok else C.AFT_UNABLE, now, why)

    def signature(self, seed: int) -> int | None:
        return self._signature(seed)

    def signature_ready(self, seed: int) -> int | None:
        return self._signature_ready(seed)

    def host(self, present: bool, seats: list[int]) -> None:
        """A line's link saw its host go or come back (``seats``: the seats on it)."""
        self.put(RequestHappening("sas", {"op": "host", "present": present,
                                          "seats": seats}))
