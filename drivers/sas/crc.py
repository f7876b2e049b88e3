"""SAS message CRC: CRC-16 with polynomial x^16+x^12+x^5+1, reflected, seed 0 (the
CCITT/Kermit form), sent least significant byte first. The seed is variable because the
ROM signature poll (0x21) uses the host's seed."""

from __future__ import annotations


def crc16(data: bytes, seed: int = 0) -> int:
    """The CRC of ``data`` starting from ``seed`` (nibble at a time: small and exact)."""
    crc = seed & 0xFFFF
    for byte in data:
        for nibble in (byte & 0x0F, byte >> 4):
            q = (crc ^ nibble) & 0x0F
            crc = (crc >> 4) ^ (q * 0x1081)
    return crc


def with_crc(message: bytes) -> bytes:
    """``message`` followed by its CRC, low byte first, as the protocol sends it."""
    return message + crc16(message).to_bytes(2, "little")
