"""SAS message CRC: CRC-16 with polynomial x^16+x^12+x^5+1, reflected, seed 0 (the
CCITT/Kermit form), sent least significant byte first. The seed is variable because the
ROM signature poll (0x21) uses the host's seed.

WHY binascii: the ROM signature runs the CRC over the whole installed program (megabytes)
while the table plays. ``binascii.crc_hqx`` is the same polynomial unreflected, in C; a
reflected CRC equals the unreflected one over bit-reversed bytes with the seed and the
result bit-reversed, and ``bytes.translate`` reverses the bits at C speed too. The test
holds it against the published check value and a plain bit-by-bit reference.
"""

from __future__ import annotations

import binascii

_REVERSED = bytes(int(f"{i:08b}"[::-1], 2) for i in range(256))


def _rev16(x: int) -> int:
    return (_REVERSED[x & 0xFF] << 8) | _REVERSED[x >> 8]


def crc16(data: bytes, seed: int = 0) -> int:
    """The CRC of ``data`` starting from ``seed``."""
    return _rev16(binascii.crc_hqx(data.translate(_REVERSED), _rev16(seed & 0xFFFF)))


class Crc16:
    """The same CRC fed in pieces (a file at a time)."""

    def __init__(self, seed: int = 0) -> None:
        self._state = _rev16(seed & 0xFFFF)

    def update(self, data: bytes) -> None:
        self._state = binascii.crc_hqx(data.translate(_REVERSED), self._state)

    @property
    def value(self) -> int:
        return _rev16(self._state)


def with_crc(message: bytes) -> bytes:
    """``message`` followed by its CRC, low byte first, as the protocol sends it."""
    return message + crc16(message).to_bytes(2, "little")
