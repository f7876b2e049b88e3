"""Shoe ICD §2 framing: CRC, encoding and an incremental decoder.

Everything here is pure (no I/O, no clock) so both sides of the link, the monitor, the
tests and the benchmark share one definition of a frame. The decoder is fed whatever
bytes the serial line delivers, in any chunking, and must never raise: a reader that
crashes on line noise would take the table down with it. Instead it counts what it drops
so a technician can see a noisy line in the statistics.
"""

from __future__ import annotations

import binascii
import re
from dataclasses import dataclass, field

#: ICD §2: a frame is at most 80 bytes from ``$`` to ``\n`` inclusive.
MAX_FRAME = 80

_SOF = 0x24  # '$'

# '$' SEQ ',' TYPE [',' FIELD]* '*' CRC '\r' '\n'; FIELD is printable ASCII except $ * ,
_FRAME_RE = re.compile(
    rb"\$(?P<body>(?P<seq>[0-9A-F]{2}),(?P<type>[A-Z]{3})(?P<fields>(?:,[\x20-\x23\x25-\x29\x2B\x2D-\x7E]+)*))"
    rb"\*(?P<crc>[0-9A-F]{4})\r\n"
)
_FIELD_RE = re.compile(r"[\x20-\x23\x25-\x29\x2B\x2D-\x7E]+")
_TYPE_RE = re.compile(r"[A-Z]{3}")


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0).

    ``binascii.crc_hqx`` is exactly this CRC when started at 0xFFFF, and it is C code:
    the decoder runs it on every frame, so speed matters on the Pi.
    """
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True)
class Frame:
    """One valid frame. ``body`` is the CRC-covered text, e.g. ``"01,CRD,AS"``."""

    seq: int
    type: str
    fields: tuple[str, ...] = ()

    @property
    def body(self) -> str:
        return ",".join((f"{self.seq:02X}", self.type, *self.fields))


def frame_bytes(frame: Frame) -> bytes:
    """``frame`` on the wire as the shoe ICD's ASCII model writes it (the frame type knows
    no encoding: a reader model, :mod:`drivers.shoe.models`, holds one)."""
    return encode(frame.seq, frame.type, *frame.fields)


def frame_text(frame: Frame) -> str:
    """``frame`` as logs and a technician read it: the ICD's text without the line end,
    whatever model carried it."""
    return frame_bytes(frame).decode("ascii").rstrip("\r\n")


def encode_body(body: str, *, corrupt_crc: bool = False) -> bytes:
    """Wrap an already formatted body (``"05,CUT"``) as a frame on the wire.

    ``corrupt_crc`` flips the checksum: the simulator's "bad CRC" fault.
    """
    raw = body.encode("ascii")
    crc = crc16(raw)
    if corrupt_crc:
        crc ^= 0x5A5A
    return b"$" + raw + b"*" + f"{crc:04X}".encode("ascii") + b"\r\n"


def encode(seq: int, type_: str, *fields: str) -> bytes:
    """The frame for ``SEQ,TYPE[,FIELD]*``; raises ValueError for what the ICD forbids.

    Raising is right here: our own code is the only caller, and a malformed frame from
    us would be a bug to fix, not line noise to tolerate.
    """
    if not 0 <= seq <= 0xFF:
        raise ValueError(f"sequence number {seq} is outside 00-FF")
    if not _TYPE_RE.fullmatch(type_):
        raise ValueError(f"frame type {type_!r} is not three uppercase letters")
    for f in fields:
        if not _FIELD_RE.fullmatch(f):
            raise ValueError(f"field {f!r} is empty or holds a character the ICD forbids")
    wire = encode_body(",".join((f"{seq:02X}", type_, *fields)))
    if len(wire) > MAX_FRAME:
        raise ValueError(f"frame of {len(wire)} bytes exceeds the ICD limit of {MAX_FRAME}")
    return wire


def parse_frame(data: bytes) -> Frame | None:
    """One complete frame (``$`` to ``\\n``) if it is valid, else None. Never raises."""
    if len(data) > MAX_FRAME:
        return None
    m = _FRAME_RE.fullmatch(data)
    if m is None:
        return None
    if crc16(m["body"]) != int(m["crc"], 16):
        return None
    fields = m["fields"].decode("ascii")
    return Frame(int(m["seq"], 16), m["type"].decode("ascii"),
                 tuple(fields[1:].split(",")) if fields else ())


@dataclass
class DecoderStats:
    """What the decoder saw; every dropped byte or frame is counted under one reason."""

    frames: int = 0  #: valid frames delivered
    bytes_in: int = 0
    garbage_bytes: int = 0  #: bytes skipped while hunting for '$'
    bad_crc: int = 0
    bad_syntax: int = 0
    overlong: int = 0  #: frames dropped for exceeding 80 bytes
    restarted: int = 0  #: partial frames abandoned because a '$' came mid-frame

    @property
    def dropped(self) -> int:
        return self.bad_crc + self.bad_syntax + self.overlong + self.restarted

    def as_dict(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in (
            "frames", "bytes_in", "garbage_bytes", "bad_crc", "bad_syntax",
            "overlong", "restarted")} | {"dropped": self.dropped}


@dataclass
class Decoder:
    """Incremental ICD §2 receiver: ``feed(bytes) -> [Frame, ...]``; never raises.

    States: hunting (skip to '$'), collecting (up to '\\n'), discarding (an overlong frame
    is being skipped until the next '$'). A '$' always starts a new frame, so one lost
    '\\n' costs only the frame it belonged to.
    """

    stats: DecoderStats = field(default_factory=DecoderStats)
    _buf: bytearray = field(default_factory=bytearray)
    _in_frame: bool = False

    def feed(self, data: bytes) -> list[Frame]:
        out: list[Frame] = []
        st = self.stats
        st.bytes_in += len(data)
        buf = self._buf
        i, n = 0, len(data)
        while i < n:
            if not self._in_frame:
                j = data.find(b"$", i)
                if j < 0:
                    st.garbage_bytes += n - i
                    break
                st.garbage_bytes += j - i
                buf.clear()
                buf.append(_SOF)
                self._in_frame = True
                i = j + 1
                continue
            nl = data.find(b"\n", i)
            sof = data.find(b"$", i)
            if sof >= 0 and (nl < 0 or sof < nl):
                st.restarted += 1  # ICD §2: a '$' inside a frame restarts framing
                buf.clear()
                buf.append(_SOF)
                i = sof + 1
                continue
            end = n if nl < 0 else nl + 1
            buf += data[i:end]
            i = end
            if len(buf) > MAX_FRAME:
                st.overlong += 1  # its tail, if any, is skipped as we hunt for '$'
                buf.clear()
                self._in_frame = False
            elif nl >= 0:
                frame = parse_frame(bytes(buf))
                if frame is not None:
                    st.frames += 1
                    out.append(frame)
                elif _FRAME_RE.fullmatch(buf) is not None:
                    st.bad_crc += 1
                else:
                    st.bad_syntax += 1
                buf.clear()
                self._in_frame = False
        return out

    def reset(self) -> None:
        """Forget a partial frame (the port was reopened); statistics are kept."""
        self._buf.clear()
        self._in_frame = False

