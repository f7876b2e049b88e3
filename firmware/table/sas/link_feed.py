"""The requests of a link process, checked field by field, into the table's inbox.

The process faces the host, so what it sends is a boundary like any other: one strict
schema (an address of its own line, integers in range, hex of bounded length); anything
else is counted (``bad_request``) and does nothing. The checked request goes to the same
:class:`~firmware.table.sas.requests.TableRequests` the thread layout calls, so the
exactly-once of transfers (the ledger id), the one-in-flight bound and the journal's
takes are the same code in both layouts.

A transfer's result is told back to the process once the controller answered it (a
waiter thread per transfer; at most one transfer in flight per machine); a ROM
signature once computed (one watcher at a time).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from drivers.sas import codes as C
from drivers.sas.aft import MAX_TXID, AftRequest
from firmware.table.happenings import RequestHappening
from firmware.table.requests.transfers import HARD_MAX_CENTS
from firmware.table.sas.link_process import LinkChild
from firmware.table.sas.requests import TableRequests

log = logging.getLogger("etg.sas")

#: a transfer the controller has not answered in this long is left to the host's
#: interrogation (the ledger still answers it)
RESULT_WAIT_S = 120.0
SIGNATURE_WAIT_S = 60.0


def _int(msg: Mapping[str, Any], key: str, lo: int, hi: int) -> int | None:
    v = msg.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        return None
    return v


def _hex(msg: Mapping[str, Any], key: str, most: int) -> bytes | None:
    v = msg.get(key)
    if not isinstance(v, str) or len(v) > 2 * most:
        return None
    try:
        return bytes.fromhex(v)
    except ValueError:
        return None


class LinkFeed:
    """Handles the requests of every line's process (``seats``: address -> seat)."""

    def __init__(self, reqs: TableRequests, seats: Mapping[int, int],
                 fresh_left: Callable[[int], float]) -> None:
        self.reqs = reqs
        self.fresh_left = fresh_left
        self.seats = dict(seats)
        self._sig_lock = threading.Lock()
        self._sig_watch: threading.Thread | None = None

    def __call__(self, child: LinkChild, msg: Mapping[str, Any]) -> None:
        op = msg.get("op")
        if op == "host" and isinstance(msg.get("present"), bool):
            self.reqs.host(bool(msg["present"]), sorted(self.seats[a] for a in child.addresses))
            return
        if op == "signature":
            seed = _int(msg, "seed", 0, 0xFFFF)
            if seed is not None:
                self._signature(child, seed)
                return
        address = _int(msg, "address", 1, 127)
        if address is None or address not in child.addresses:
            child.counts["bad_request"] += 1
            return
        if op == "taken":
            seq = _int(msg, "seq", 1, 2**62)
            # only an exception the table offered it (a take of record 2**62 would hide
            # every exception to come); one just taken otherwise is dropped, harmless
            if seq is not None and seq in child.offered(address):
                self._taken(address, seq, msg.get("recovered") is True)
                return
        elif op == "enable" and isinstance(msg.get("on"), bool):
            self.reqs.enable(address, bool(msg["on"]))
            return
        elif op == "transfer":
            req = self._transfer_request(msg)
            if req is not None:
                self._transfer(child, address, req)
                return
        child.counts["bad_request"] += 1

    def _taken(self, address: int, seq: int, recovered: bool) -> None:
        args: dict[str, Any] = {"op": "taken", "address": address, "seq": seq}
        if recovered:
            args["recovered"] = True
        self.reqs.put(RequestHappening("sas", args))

    @staticmethod
    def _transfer_request(msg: Mapping[str, Any]) -> AftRequest | None:
        kind = _int(msg, "kind", 0, 0xFF)
        cents = _int(msg, "cents", 1, HARD_MAX_CENTS)
        asset = _int(msg, "asset", 0, 0xFFFFFFFF)
        txid = _hex(msg, "txid", MAX_TXID)
        receipt = _hex(msg, "receipt", 64)
        if (kind not in (C.AFT_IN_HOUSE_TO_MACHINE, C.AFT_IN_HOUSE_TO_HOST) or cents is None
                or asset is None or not txid or receipt is None):
            return None
        return AftRequest(0x00, kind, cents, 0, 0, 0, asset, txid, receipt)

    def _transfer(self, child: LinkChild, address: int, req: AftRequest) -> None:
        if req.asset != self.reqs.assets.get(address):
            child.counts["bad_request"] += 1
            return
        before = self.reqs._transfers.get((address, req.txid))
        self.reqs.transfer(address, req)
        sent = self.reqs._transfers.get((address, req.txid))
        if sent is None or sent is before:
            return  # one of this machine's transfers is in flight: not sent

        def wait() -> None:
            reply = sent[0]
            try:
                got = reply.get(timeout=RESULT_WAIT_S)
            except Exception:
                return
            reply.put(got)  # kept for the table's own interrogation path
            res = self.reqs.transfer_done(address, req)
            if res is not None:
                child.tell(("result", address, req.txid, res.status, res.why))

        threading.Thread(target=wait, daemon=True, name="sas-transfer-wait").start()

    def _signature(self, child: LinkChild, seed: int) -> None:
        value = self.reqs.signature(seed)
        if value is not None:
            child.tell(("sig", seed, value, self.fresh_left(seed)))
            return
        with self._sig_lock:
            if self._sig_watch is not None and self._sig_watch.is_alive():
                return

            def watch() -> None:
                deadline = time.monotonic() + SIGNATURE_WAIT_S
                while time.monotonic() < deadline:
                    got = self.reqs.signature_ready(seed)
                    if got is not None:
                        child.tell(("sig", seed, got, self.fresh_left(seed)))
                        return
                    time.sleep(0.02)

            self._sig_watch = threading.Thread(target=watch, daemon=True,
                                               name="sas-signature-watch")
            self._sig_watch.start()


def link_died(reqs: TableRequests, child: LinkChild, rc: int | None) -> None:
    """A line's process ended while the table runs: journaled (1104), then restarted."""
    reqs.put(RequestHappening("sas", {"op": "link", "exit": rc, "restarts": child.restarts,
                                      "addresses": sorted(child.addresses)}))
