"""The SAS CRC against the published CRC-16/KERMIT check value."""

from drivers.sas.crc import crc16, with_crc


def test_kermit_check_value() -> None:
    assert crc16(b"123456789") == 0x2189


def test_with_crc_low_byte_first() -> None:
    assert with_crc(b"123456789")[-2:] == bytes((0x89, 0x21))


def _bitwise(data: bytes, seed: int) -> int:
    """The reflected CRC one bit at a time (polynomial 0x1021 reversed: 0x8408)."""
    crc = seed
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def test_fast_crc_equals_the_bitwise_reference_for_any_seed() -> None:
    import random

    from drivers.sas.crc import Crc16

    rnd = random.Random(46)
    for _ in range(50):
        data = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 300)))
        seed = rnd.randrange(0x10000)
        assert crc16(data, seed) == _bitwise(data, seed)
        inc = Crc16(seed)
        inc.update(data[:7])
        inc.update(data[7:])
        assert inc.value == crc16(data, seed)
