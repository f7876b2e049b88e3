"""A SAS host written for the tests from the protocol's public facts alone: it imports
nothing of ``drivers.sas`` or ``firmware`` (the CRC, the BCD, the frames and the layout
of every answer are its own), so that it checks the table's machines against the
protocol as a slot system's host reads it, not against our own reading of it.

The facts it rests on (SAS 6.02, as public host and machine implementations state them):

- A general poll is one byte, ``0x80 | address``; the answer is one exception byte.
- A read-type long poll (meters, ``1F``) is address and command, no CRC; its answer is
  address, command, data, CRC.
- The CRC is CRC-16/KERMIT: polynomial 0x1021 reflected (0x8408), seed 0, no final xor,
  sent low byte first; its check value over ``b"123456789"`` is 0x2189.
- Meters are packed BCD, most significant digit first; binary fields (asset number,
  two-byte meter codes) low byte first.
- ``0F``: cancelled credits, coin in, coin out, drop, jackpot, games played (4 bytes
  each, 28 in all); ``10``-``17``: one meter each (cancelled credits, coin in, coin out,
  drop, jackpot, games played, won, lost), ``1A``: current credits (8 bytes in all);
  ``1C``: coin in, coin out, drop, jackpot, games played, games won, slot door opened,
  power reset (36 in all).
- ``2F``: address, 2F, length, game number (2 BCD), one-byte meter codes; the answer
  address, 2F, length, game number, then code and value per meter (the meters kept
  here are all 4-byte meters in the protocol's meter table).
- ``6F`` / ``AF``: as 2F with two-byte codes (at most 12 a poll; 2F: at most 10); each
  meter in the answer is code (2), size (1), value (size bytes BCD).
- Meter codes: 0000 coin in, 0001 coin out, 0002 jackpot, 0003 hand-paid cancelled
  credits, 0004 cancelled credits, 0005 games played, 0006 won, 0007 lost, 000C current
  credits, 0017 electronic transfers to the machine, 0018 to the host, 0022 total won
  (coin out + jackpot), 0024 total drop.
- ``74`` (lock code FF: status only): address, 74, length, asset number (4, binary), lock
  status, available transfers, host cash-out status, AFT status, history size, current
  cashable amount (5 BCD), ...
- ``01`` / ``02``: shutdown / startup with a CRC; the machine answers its address.
- ``72`` AFT transfer funds: address, 72, length, transfer code (00 full transfer),
  transaction index (00), transfer type (00 host to machine, 80 machine to host),
  cashable, restricted and nonrestricted amounts (5 BCD each, cents), transfer flags,
  asset number (4), registration key (20; zeros: none), transaction id length and id
  (1-20 ASCII), expiration (4 BCD), pool id (2), receipt data length and data, lock
  timeout (2 BCD), CRC. Interrogation: length 2, transfer code FF, index 00. The answer:
  address, 72, length, buffer position, transfer status (00 full success, 40 pending,
  81 id not unique, 87 unable now, ...), receipt status, transfer type, the three
  amounts (5 BCD each), flags, asset number (4), id length and id, date (MMDDYYYY, 4
  BCD), time (HHMMSS, 3 BCD), ...
"""

from __future__ import annotations

import os
import select
import termios
import time
import tty

POLY_REFLECTED = 0x8408

ONE_METER = {0x10: 0x0004, 0x11: 0x0000, 0x12: 0x0001, 0x13: 0x0024, 0x14: 0x0002,
             0x15: 0x0005, 0x16: 0x0006, 0x17: 0x0007, 0x1A: 0x000C}
SET_0F = (0x0004, 0x0000, 0x0001, 0x0024, 0x0002, 0x0005)
SET_1C = (0x0000, 0x0001, 0x0024, 0x0002, 0x0005, 0x0006, "door", "power")
KEPT = (0x0000, 0x0001, 0x0002, 0x0003, 0x0004, 0x0005, 0x0006, 0x0007, 0x000C, 0x0017,
        0x0018, 0x0022, 0x0024)


def kermit(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ POLY_REFLECTED if crc & 1 else crc >> 1
    return crc


def with_crc(body: bytes) -> bytes:
    c = kermit(body)
    return body + bytes((c & 0xFF, c >> 8))


def crc_ok(frame: bytes) -> bool:
    return len(frame) >= 3 and with_crc(frame[:-2]) == frame


def bcd(raw: bytes) -> int:
    digits = raw.hex()
    if not digits.isdigit():
        raise ValueError(f"not BCD: {digits}")
    return int(digits)


def to_bcd(n: int, width: int) -> bytes:
    return bytes.fromhex(f"{n:0{2 * width}d}")


class PtyHost:
    """One host on a pty (raw mode, no parity: the pty carries no wakeup bit)."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        termios.tcflush(self.fd, termios.TCIOFLUSH)

    def close(self) -> None:
        os.close(self.fd)

    def ask(self, msg: bytes, want: int | None, wait: float = 1.0) -> bytes:
        """Send ``msg``; read until ``want`` bytes came (None: until the length byte
        says), or until 30 ms pass without a byte once something came."""
        while select.select([self.fd], [], [], 0)[0]:
            os.read(self.fd, 4096)  # nothing stale in front of the answer
        os.write(self.fd, msg)
        got = b""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if want is not None and len(got) >= want:
                break
            if want is None and len(got) >= 3 and len(got) >= got[2] + 5:
                break
            left = deadline - time.monotonic() if not got else 0.03
            if not select.select([self.fd], [], [], max(0.0, left))[0]:
                if got:
                    break
                continue
            got += os.read(self.fd, 4096)
        return got

    # -- polls ---------------------------------------------------------------------------

    def general(self, address: int) -> int | None:
        got = self.ask(bytes((0x80 | address,)), 1, wait=0.3)
        return got[0] if got else None

    def read(self, address: int, command: int, size: int) -> bytes | None:
        """A read-type long poll: the data of an answer of ``size`` bytes, CRC checked."""
        got = self.ask(bytes((address, command)), size, wait=0.3)
        if not got:
            return None
        assert len(got) == size, (hex(command), got.hex())
        assert got[:2] == bytes((address, command)) and crc_ok(got), got.hex()
        return got[2:-2]

    def meters_2f(self, address: int, codes: tuple[int, ...]) -> dict[int, int]:
        body = to_bcd(0, 2) + bytes(codes)
        got = self.ask(with_crc(bytes((address, 0x2F, len(body))) + body), None)
        assert got[:2] == bytes((address, 0x2F)) and crc_ok(got), got.hex()
        assert got[2] == len(got) - 5 and got[3:5] == b"\x00\x00", got.hex()
        data, out = got[5:-2], {}
        while data:
            out[data[0]] = bcd(data[1:5])
            data = data[5:]
        return out

    def meters_extended(self, address: int, command: int,
                        codes: tuple[int, ...]) -> dict[int, tuple[int, int]]:
        """``6F``/``AF``: code -> (size in bytes, value)."""
        body = to_bcd(0, 2) + b"".join(c.to_bytes(2, "little") for c in codes)
        got = self.ask(with_crc(bytes((address, command, len(body))) + body), None)
        assert got[:2] == bytes((address, command)) and crc_ok(got), got.hex()
        assert got[2] == len(got) - 5 and got[3:5] == b"\x00\x00", got.hex()
        data, out = got[5:-2], {}
        while data:
            code, size = int.from_bytes(data[:2], "little"), data[2]
            assert 0 <= size <= 9, got.hex()
            out[code] = (size, bcd(data[3:3 + size]) if size else 0)
            data = data[3 + size:]
        return out

    def status_74(self, address: int) -> tuple[int, int]:
        """(asset number, current cashable amount) from a status-only 74."""
        got = self.ask(with_crc(bytes((address, 0x74, 0xFF, 0x00, 0x00, 0x00))), None)
        assert got[:2] == bytes((address, 0x74)) and crc_ok(got), got.hex()
        assert got[2] == len(got) - 5, got.hex()
        return int.from_bytes(got[3:7], "little"), bcd(got[12:17])

    def transfer(self, address: int, kind: int, cents: int, asset: int,
                 txid: bytes) -> dict[str, object]:
        body = (bytes((0x00, 0x00, kind)) + to_bcd(cents, 5) + to_bcd(0, 5) + to_bcd(0, 5)
                + b"\x00" + asset.to_bytes(4, "little") + bytes(20) + bytes((len(txid),))
                + txid + to_bcd(0, 4) + b"\x00\x00" + b"\x00" + to_bcd(0, 2))
        return self._aft_answer(address, with_crc(bytes((address, 0x72, len(body))) + body))

    def interrogate(self, address: int) -> dict[str, object]:
        return self._aft_answer(address, with_crc(bytes((address, 0x72, 2, 0xFF, 0x00))))

    def _aft_answer(self, address: int, msg: bytes) -> dict[str, object]:
        got = self.ask(msg, None)
        assert got[:2] == bytes((address, 0x72)) and crc_ok(got), got.hex()
        assert got[2] == len(got) - 5, got.hex()
        d = got[3:-2]
        out: dict[str, object] = {"status": d[1]}
        if len(d) >= 26:  # the full layout (a bare refusal may stop after the status)
            n = d[24]
            out.update(type=d[3], cashable=bcd(d[4:9]), restricted=bcd(d[9:14]),
                       nonrestricted=bcd(d[14:19]), asset=int.from_bytes(d[20:24], "little"),
                       txid=bytes(d[25:25 + n]))
        return out

    def enable(self, address: int, on: bool) -> bool:
        got = self.ask(with_crc(bytes((address, 0x02 if on else 0x01))), 1, wait=0.3)
        return got == bytes((address,))

    def every_meter(self, address: int) -> dict[str, int]:
        """Every meter every poll gives, named ``POLL:CODE``; each poll's answer checked
        for its length and CRC on the way."""
        out: dict[str, int] = {}
        for cmd, code in ONE_METER.items():
            data = self.read(address, cmd, 8)
            assert data is not None, f"no answer to {cmd:02X} from {address}"
            out[f"{cmd:02X}:{code:04X}"] = bcd(data)
        data = self.read(address, 0x0F, 28)
        assert data is not None
        for i, code in enumerate(SET_0F):
            out[f"0F:{code:04X}"] = bcd(data[4 * i:4 * i + 4])
        data = self.read(address, 0x1C, 36)
        assert data is not None
        for i, c in enumerate(SET_1C):
            key = f"1C:{c:04X}" if isinstance(c, int) else f"1C:{c}"
            out[key] = bcd(data[4 * i:4 * i + 4])
        for codes in ((0, 1, 2, 3, 4, 5, 6, 7, 0x0C), (0x17, 0x18, 0x22, 0x24)):
            for code, value in self.meters_2f(address, codes).items():
                out[f"2F:{code:04X}"] = value
        for cmd in (0x6F, 0xAF):  # at most 12 meters a poll (the protocol's limit)
            got = {**self.meters_extended(address, cmd, KEPT[:12]),
                   **self.meters_extended(address, cmd, KEPT[12:])}
            assert set(got) == set(KEPT), (hex(cmd), sorted(got))
            for code, (_size, value) in got.items():
                out[f"{cmd:02X}:{code:04X}"] = value
        return out
