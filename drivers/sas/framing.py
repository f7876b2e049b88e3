"""SAS messages on the wire: what a host sends, where each of its messages ends, and the
numbers inside them (BCD meters, binary fields).

A host sends two kinds of poll. A *general poll* is one byte, ``0x80 | address``, asking
for the oldest queued exception. A *long poll* is ``address, command, data`` and (except
for the read-type polls, which are only ``address, command``) a CRC of all of it. On a
real line the first byte of every poll carries the wakeup (ninth) bit; on a
pseudo-terminal there is no ninth bit, so the boundaries come from the content (each
command has a known length or a length byte) and from the protocol's inter-byte timing (a
host sends the bytes of one message back to back; a gap longer than the inter-byte limit
ends whatever was partial, which is then dropped).

:class:`Splitter` does that in one place for both kinds of port, and never grows: a
message is at most :data:`MAX_MESSAGE` bytes, and a byte it cannot place is counted and
dropped until the next boundary.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from drivers.sas.crc import crc16

GENERAL_POLL = 0x80
#: the inter-byte limit within one host message (5 ms): a longer gap is a boundary
INTERBYTE_S = 0.005
#: longest message a host can send: address, command, length byte (255), data, CRC
MAX_MESSAGE = 3 + 255 + 2

#: total length (address..CRC) of each fixed-length long poll we take; read-type polls
#: (meters, lock status) carry no CRC: address and command only
FIXED: dict[int, int] = {
    0x01: 4, 0x02: 4,                      # shutdown, startup: address cmd CRC
    0x0F: 2,                               # meters 10-15 (read type)
    **{c: 2 for c in range(0x10, 0x18)},   # single meters 10..17 (read type)
    0x1A: 2, 0x1C: 2, 0x1F: 2,             # current credits, meters, game configuration
    0x21: 6,                               # ROM signature: address cmd seed(2) CRC
    0x54: 2,                               # SAS version and serial number
    0x74: 8,                               # AFT lock and status: lock cond timeout(2) CRC
}
#: variable-length long polls: address, command, length, that many bytes, CRC
VARIABLE = frozenset({0x2F, 0x6F, 0xAF, 0x72, 0x73})


@dataclass(frozen=True)
class Poll:
    """One whole host message: a general poll (``command`` None) or a long poll;
    ``data`` is what follows the command (and the length byte), without the CRC."""

    address: int
    command: int | None
    data: bytes = b""
    raw: bytes = b""

    @property
    def general(self) -> bool:
        return self.command is None


def expected_length(head: bytes) -> int | None:
    """The whole length of the message starting with ``head`` (1..3 bytes), 0 when it
    cannot be known (an unknown command), None while more bytes are needed to say."""
    if head[0] & GENERAL_POLL:
        return 1
    if len(head) < 2:
        return None
    cmd = head[1]
    if cmd in FIXED:
        return FIXED[cmd]
    if cmd in VARIABLE:
        return None if len(head) < 3 else 3 + head[2] + 2
    return 0


class Splitter:
    """Bytes in (each with its arrival time and, on a real UART, its wakeup bit), whole
    messages out. Counts what it drops in :attr:`counts`: ``partial`` (a message cut by
    a gap or a wakeup byte), ``unknown`` (a command whose length nobody can know: skipped
    to the next boundary), ``bad_crc``."""

    def __init__(self, interbyte_s: float = INTERBYTE_S) -> None:
        self.interbyte_s = interbyte_s
        self.buf = bytearray()
        self.skipping = False  # inside a message we cannot frame: drop to the boundary
        self.last_t: float | None = None
        self.counts: Counter[str] = Counter()

    def _boundary(self, why: str) -> None:
        if self.buf:
            self.counts[why] += 1
        self.buf.clear()
        self.skipping = False

    def expire(self, now: float) -> None:
        """Drop a partial message once the inter-byte limit has passed with nothing."""
        if (self.buf or self.skipping) and self.last_t is not None and \
                now - self.last_t > self.interbyte_s:
            self._boundary("partial")

    def feed(self, byte: int, t: float, wake: bool | None = None) -> Poll | None:
        """One byte; the message it completes, if any. ``wake`` None: no ninth bit
        (a pty); True/False: the byte's wakeup bit as the UART marked it."""
        if self.last_t is not None and t - self.last_t > self.interbyte_s:
            self._boundary("partial")
        self.last_t = t
        if wake:
            self._boundary("partial")  # a wakeup byte always begins a new message
        elif wake is False and not self.buf and not self.skipping:
            self.counts["no_wakeup"] += 1  # a first byte without its ninth bit
            self.skipping = True
            return None
        if self.skipping:
            return None
        self.buf.append(byte)
        want = expected_length(bytes(self.buf[:3]))
        if want == 0:
            self.counts["unknown"] += 1
            self.buf.clear()
            self.skipping = True
            return None
        if want is None or len(self.buf) < want:
            return None
        raw = bytes(self.buf)
        self.buf.clear()
        return self._parse(raw)

    def _parse(self, raw: bytes) -> Poll | None:
        if len(raw) == 1:
            return Poll(raw[0] & 0x7F, None, b"", raw)
        cmd = raw[1]
        if FIXED.get(cmd) == 2:
            return Poll(raw[0], cmd, b"", raw)
        if crc16(raw[:-2]) != int.from_bytes(raw[-2:], "little"):
            # what follows in the same burst is not a poll either: we framed this wrong,
            # or it is noise (red team F5: a byte >= 80 behind it was taken as a general
            # poll); skipped to the next boundary (a gap, or a wakeup byte)
            self.counts["bad_crc"] += 1
            self.skipping = True
            return None
        body = raw[3:-2] if cmd in VARIABLE else raw[2:-2]
        return Poll(raw[0], cmd, body, raw)


# -- numbers --------------------------------------------------------------------------


def bcd(value: int, nbytes: int) -> bytes:
    """``value`` as packed BCD, most significant digit first; a meter wider than the
    field rolls over (the protocol's meters are modulo their width)."""
    digits = f"{value % 10 ** (2 * nbytes):0{2 * nbytes}d}"
    return bytes(int(digits[i: i + 2], 16) for i in range(0, len(digits), 2))


def from_bcd(data: bytes) -> int:
    """Packed BCD to an integer; a nibble above 9 is refused (ValueError)."""
    text = data.hex()
    if not text.isdigit():
        raise ValueError(f"not BCD: {text}")
    return int(text) if text else 0


def long_poll(address: int, command: int, data: bytes = b"", *, crc: bool = True,
              variable: bool = False) -> bytes:
    """A long poll as a host sends it (for the simulated host and the tests)."""
    body = bytes((address, command)) + (bytes((len(data),)) if variable else b"") + data
    return body + crc16(body).to_bytes(2, "little") if crc else body


def answer(address: int, command: int, data: bytes, *, variable: bool = False) -> bytes:
    """A gaming machine's reply to a long poll: address, command, [length], data, CRC."""
    body = bytes((address, command)) + (bytes((len(data),)) if variable else b"") + data
    return body + crc16(body).to_bytes(2, "little")
