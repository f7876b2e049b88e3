"""The SAS CRC against the published CRC-16/KERMIT check value."""

from drivers.sas.crc import crc16, with_crc


def test_kermit_check_value() -> None:
    assert crc16(b"123456789") == 0x2189


def test_with_crc_low_byte_first() -> None:
    assert with_crc(b"123456789")[-2:] == bytes((0x89, 0x21))
