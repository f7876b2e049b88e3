"""A small binary shoe reader model, for the tests only (never shipped): it proves that
the driver, the session, the simulator and its fault injection hold no ASCII of their
own (issue 48: a binary model failed the simulator's bad-CRC injection and one driver
test). tests/shoe/conftest.py registers it, so every suite over
:data:`drivers.shoe.models.MODELS` (the driver's whole suite included) runs over it.

A frame: ``STX stuffed(LEN SEQ TYPE[3] FIELD (US FIELD)* CRC[2]) ETX``: LEN the count of
bytes from SEQ to the last field, SEQ one byte, the three type letters, the fields
separated by US (0x1F), CRC-16/CCITT-FALSE over LEN to the last field, big-endian; every
STX (0x02), ETX (0x03) or DLE (0x10) inside is sent as DLE and the byte XOR 0x20 (byte
stuffing, as HDLC does), so an STX always starts a frame. No line ends, no hex digits:
nothing the ICD's ASCII decoder would take.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from drivers.shoe.framing import DecoderStats, Frame, crc16
from drivers.shoe.models import ReaderModel

STX, ETX, DLE = 0x02, 0x03, 0x10
US = 0x1F
#: the longest frame the decoder collects (longer is line noise, not a frame)
MAX_FRAME = 160


def _payload(frame: Frame) -> bytes:
    fields = bytes([US]).join(f.encode("ascii") for f in frame.fields)
    return bytes([frame.seq]) + frame.type.encode("ascii") + (bytes([US]) + fields
                                                              if frame.fields else b"")


def _stuff(data: bytes) -> bytes:
    out = bytearray()
    for b in data:
        out += bytes([DLE, b ^ 0x20]) if b in (STX, ETX, DLE) else bytes([b])
    return bytes(out)


def _unstuff(data: bytes) -> bytes | None:
    out, esc = bytearray(), False
    for b in data:
        if esc:
            out.append(b ^ 0x20)
            esc = False
        elif b == DLE:
            esc = True
        else:
            out.append(b)
    return None if esc else bytes(out)


def _wire(frame: Frame, bad_crc: bool = False) -> bytes:
    payload = _payload(frame)
    covered = bytes([len(payload)]) + payload
    crc = crc16(covered) ^ (0x5A5A if bad_crc else 0)
    return bytes([STX]) + _stuff(covered + crc.to_bytes(2, "big")) + bytes([ETX])


def encode(frame: Frame) -> bytes:
    return _wire(frame)


def corrupt(frame: Frame) -> bytes:
    """The frame with its CRC wrong: the simulator's bad-crc fault in this model."""
    return _wire(frame, bad_crc=True)


def _parse(payload: bytes) -> Frame | None:
    if len(payload) < 4:
        return None
    kind = payload[1:4]
    if not kind.isalpha() or not kind.isupper():
        return None
    rest = payload[4:]
    if rest and rest[0] != US:
        return None
    try:
        fields = tuple(f.decode("ascii") for f in rest[1:].split(bytes([US]))) if rest else ()
    except UnicodeDecodeError:
        return None
    if any(not f for f in fields):
        return None
    return Frame(payload[0], kind.decode("ascii"), fields)


@dataclass
class BinaryDecoder:
    """Incremental receiver of the binary frames; never raises, counts what it drops."""

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray)
    _in_frame: bool = False

    def feed(self, data: bytes) -> list[Frame]:
        st, out = self.stats, []
        st.bytes_in += len(data)
        for b in data:
            if b == STX:
                if self._in_frame:
                    st.restarted += 1
                self._buf.clear()
                self._in_frame = True
            elif not self._in_frame:
                st.garbage_bytes += 1
            elif b == ETX:
                self._in_frame = False
                frame = self._frame(bytes(self._buf))
                if frame is not None:
                    st.frames += 1
                    out.append(frame)
            elif len(self._buf) >= MAX_FRAME:
                st.overlong += 1
                self._in_frame = False
            else:
                self._buf.append(b)
        return out

    def _frame(self, stuffed: bytes) -> Frame | None:
        raw = _unstuff(stuffed)
        if raw is None or len(raw) < 3 or raw[0] != len(raw) - 3:
            self.stats.bad_syntax += 1
            return None
        if crc16(raw[:-2]) != int.from_bytes(raw[-2:], "big"):
            self.stats.bad_crc += 1
            return None
        frame = _parse(raw[1:-2])
        if frame is None:
            self.stats.bad_syntax += 1
        return frame

    def reset(self) -> None:
        self._buf.clear()
        self._in_frame = False


BINARY = ReaderModel("binary-test", encode, BinaryDecoder, corrupt,
                     "tests only: STX, stuffed LEN SEQ TYPE FIELD(US FIELD)* CRC16, ETX")
