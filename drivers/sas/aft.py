"""AFT (long poll 72): a host's transfer request parsed strictly, and the machine's answer.

Only in-house cashable transfers are taken, to the machine (type 00) and from it to the
host (type 80), all or nothing; restricted and nonrestricted amounts must be zero. A
request that does not parse exactly (a length that does not add up, a BCD nibble above 9,
a transaction id that is not 1-20 printable ASCII characters) gets no answer at all.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from drivers.sas import codes as C
from drivers.sas.framing import bcd, from_bcd

#: the fixed part before the transaction id: code, index, type, 3 x 5 amounts, flags,
#: asset (4), registration key (20), transaction id length
_HEAD = 1 + 1 + 1 + 15 + 1 + 4 + 20 + 1
MAX_TXID = 20


@dataclass(frozen=True)
class AftResult:
    """What a host reads back about one transfer."""

    status: int
    kind: int  #: transfer type (00 to the machine, 80 to the host)
    cents: int
    txid: bytes
    when: dt.datetime
    why: str = ""


@dataclass(frozen=True)
class AftRequest:
    code: int
    kind: int
    cents: int
    restricted: int
    nonrestricted: int
    flags: int
    asset: int
    txid: bytes
    receipt: bytes
    regkey: bytes = bytes(20)

    @property
    def interrogate(self) -> bool:
        return self.code in C.AFT_INTERROGATE

    @property
    def to_machine(self) -> bool:
        return self.kind == C.AFT_IN_HOUSE_TO_MACHINE

    def refusal(self, seat_refusal: str | None, limit: int) -> tuple[int, str] | None:
        """The status and why the machine refuses this request before asking the table,
        or None."""
        if self.code not in C.AFT_REQUEST:
            return C.AFT_UNSUPPORTED_CODE, f"transfer code {self.code:02X} is not supported"
        if self.kind not in (C.AFT_IN_HOUSE_TO_MACHINE, C.AFT_IN_HOUSE_TO_HOST):
            return (C.AFT_INVALID_FUNCTION,
                    f"transfer type {self.kind:02X} is not supported (in-house cashable only)")
        if self.restricted or self.nonrestricted:
            return C.AFT_INVALID_FUNCTION, "restricted and nonrestricted credits: not supported"
        if self.cents <= 0:
            return C.AFT_INVALID_FUNCTION, "nothing to transfer"
        if limit and self.cents > limit:
            return C.AFT_OVER_LIMIT, f"{self.cents} cents is above the transfer limit {limit}"
        return None if seat_refusal is None else (C.AFT_UNABLE, seat_refusal)

    def result(self, status: int, when: dt.datetime, why: str = "") -> AftResult:
        return AftResult(status, self.kind, self.cents, self.txid, when, why)


def parse_aft(data: bytes) -> AftRequest | None:
    """The request in ``data`` (after the length byte), or None if it does not parse."""
    if len(data) == 2 and data[0] in C.AFT_INTERROGATE:
        return AftRequest(data[0], 0, 0, 0, 0, 0, 0, b"", b"")
    if len(data) < _HEAD:
        return None
    try:
        amounts = [from_bcd(data[3 + 5 * i: 8 + 5 * i]) for i in range(3)]
        n = data[_HEAD - 1]
        txid = bytes(data[_HEAD: _HEAD + n])
        rest = data[_HEAD + n:]
        if not 1 <= n <= MAX_TXID or len(txid) != n or not all(0x20 < b < 0x7F for b in txid):
            return None
        if len(rest) < 4 + 2 + 1:
            return None
        from_bcd(rest[:4])  # expiration: must be BCD, otherwise unused
        m = rest[6]
        receipt = bytes(rest[7: 7 + m])
        # the lock timeout (2 BCD) ends the request; hosts in the field leave it out
        # (checked against one: docs/sas.md), so a request that ends right after its
        # receipt data is taken with none, and every other length is refused
        if len(receipt) != m or len(rest) not in (7 + m, 7 + m + 2):
            return None
        from_bcd(rest[7 + m:] or bytes(2))  # lock timeout
    except ValueError:
        return None
    return AftRequest(data[0], data[2], amounts[0], amounts[1], amounts[2], data[18],
                      int.from_bytes(data[19:23], "little"), txid, receipt,
                      bytes(data[23:43]))


def result_data(res: AftResult | None, asset: int, meters: Mapping[int, int]) -> bytes:
    """Long poll 72's answer after the length byte. ``None``: no transfer information."""
    if res is None:
        return bytes((0x00, C.AFT_NO_INFO))
    when = res.when
    date = bcd(int(f"{when.month:02d}{when.day:02d}{when.year:04d}"), 4)
    time = bcd(int(f"{when.hour:02d}{when.minute:02d}{when.second:02d}"), 3)
    cumulative = meters.get(C.ELECTRONIC_IN if res.kind == C.AFT_IN_HOUSE_TO_MACHINE
                            else C.ELECTRONIC_OUT, 0)
    return (bytes((0x00, res.status, C.NO_RECEIPT, res.kind)) + bcd(res.cents, 5)
            + bcd(0, 5) + bcd(0, 5) + bytes((0x00,)) + asset.to_bytes(4, "little")
            + bytes((len(res.txid),)) + res.txid + date + time + bcd(0, 4) + bcd(0, 2)
            + bytes((5,)) + bcd(int(cumulative), 5) + bytes((5,)) + bcd(0, 5)
            + bytes((5,)) + bcd(0, 5))


def request_data(kind: int, cents: int, asset: int, txid: bytes, *, code: int = 0x00,
                 receipt: bytes = b"", regkey: bytes = bytes(20)) -> bytes:
    """A host's transfer request (for the simulated host and the tests)."""
    return (bytes((code, 0x00, kind)) + bcd(cents, 5) + bcd(0, 5) + bcd(0, 5)
            + bytes((0x00,)) + asset.to_bytes(4, "little") + regkey
            + bytes((len(txid),)) + txid + bcd(0, 4) + bcd(0, 2)
            + bytes((len(receipt),)) + receipt + bcd(0, 2))


def parse_result(data: bytes) -> dict[str, object]:
    """A machine's answer to 72, for the host (status, type, amount, id)."""
    if len(data) < 2:
        raise ValueError("short AFT answer")
    out: dict[str, object] = {"position": data[0], "status": data[1]}
    if len(data) > 2:
        n = data[24]
        out.update(receipt=data[2], type=data[3], cents=from_bcd(data[4:9]),
                   asset=int.from_bytes(data[20:24], "little"),
                   txid=data[25: 25 + n].decode("ascii", "replace"))
    return out
