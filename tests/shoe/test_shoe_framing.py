"""Shoe ICD §2 framing and the §7 example vectors; hypothesis fuzzing of the decoder."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.shoe.framing import (
    MAX_FRAME,
    Decoder,
    Frame,
    crc16,
    encode,
    encode_body,
    frame_bytes,
)

# ICD §7, every frame with its real CRC (the example and the extra check values).
ICD_VECTORS = [
    "$00,HEL,1,ETG-SHOE-S1,2.3.0,SN004211*38DA",
    "$00,ACK*DEA3",
    "$00,NEW,6*D2DD",
    "$01,ULK*FB6F",
    "$01,ACK*74F2",
    "$01,CRD,AS*2702",
    "$02,CRD,TD*7127",
    "$02,ACK*9A20",
    "$02,HBT,5123,READY*EABB",
    "$03,ERR,MISREAD*9DF2",
    "$03,ACK*3071",
    "$01,NEW,6*6ABC",
    "$02,ULK*15BD",
    "$05,CUT*D99F",
    "$03,QRY*7123",
    "$06,STA,READY,214*F49C",
    "$07,NAK,STATE*54A8",
    "$04,HBT,5123,READY*2A00",
]


def reference_crc(data: bytes) -> int:
    """Bit-by-bit CRC-16/CCITT-FALSE, written from the ICD's parameters (independent)."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def test_icd_2_crc_check_value() -> None:
    """ICD §2: CRC of ASCII 123456789 is 29B1."""
    assert crc16(b"123456789") == 0x29B1 == reference_crc(b"123456789")


@given(st.binary(max_size=100))
def test_icd_2_crc_matches_reference(data: bytes) -> None:
    assert crc16(data) == reference_crc(data)


@pytest.mark.parametrize("line", ICD_VECTORS)
def test_icd_7_example_frames_encode_and_decode(line: str) -> None:
    """ICD §7: every example frame, byte for byte, both ways."""
    body = line[1:line.index("*")]
    seq, type_, *fields = body.split(",")
    wire = (line + "\r\n").encode()
    assert encode(int(seq, 16), type_, *fields) == wire
    frames = Decoder().feed(wire)
    assert frames == [Frame(int(seq, 16), type_, tuple(fields))]
    assert frame_bytes(frames[0]) == wire


def test_icd_2_crc_covers_after_dollar_up_to_star() -> None:
    wire = encode(0x05, "CUT")
    assert wire == b"$05,CUT*D99F\r\n"
    assert int(wire[8:12], 16) == reference_crc(b"05,CUT")


def test_icd_2_receiver_skips_bytes_until_dollar() -> None:
    d = Decoder()
    assert d.feed(b"noise\x00\xff" + encode(1, "CUT")) == [Frame(1, "CUT")]
    assert d.stats.garbage_bytes == 7 and d.stats.dropped == 0


def test_icd_2_dollar_inside_frame_restarts_framing() -> None:
    d = Decoder()
    assert d.feed(b"$01,CRD,A" + encode(2, "CRD", "TD")) == [Frame(2, "CRD", ("TD",))]
    assert d.stats.restarted == 1


def test_icd_2_frame_longer_than_80_bytes_is_dropped_and_counted() -> None:
    body = "01,ERR,MISREAD," + "X" * 60
    wire = encode_body(body)
    assert len(wire) > MAX_FRAME
    d = Decoder()
    assert d.feed(wire + encode(2, "CUT")) == [Frame(2, "CUT")]
    assert d.stats.overlong == 1


def test_icd_2_frame_of_exactly_80_bytes_is_accepted() -> None:
    base = len(encode_body("01,ERR,A"))
    wire = encode_body("01,ERR,A" + "B" * (MAX_FRAME - base))
    assert len(wire) == MAX_FRAME
    assert len(Decoder().feed(wire)) == 1
    with pytest.raises(ValueError):
        encode(1, "ERR", "A" + "B" * (MAX_FRAME - base + 1))


def test_icd_2_overlong_frame_without_newline_is_skipped_until_next_dollar() -> None:
    d = Decoder()
    assert d.feed(b"$01,CRD," + b"A" * 200) == []
    assert d.feed(b"more tail\r\n" + encode(3, "EMP")) == [Frame(3, "EMP")]
    assert d.stats.overlong == 1


def test_icd_2_bad_crc_is_dropped_and_counted() -> None:
    d = Decoder()
    assert d.feed(encode_body("01,CRD,AS", corrupt_crc=True)) == []
    assert d.stats.bad_crc == 1
    assert d.feed(b"$01,CRD,AS*2703\r\n") == []
    assert d.stats.bad_crc == 2


@pytest.mark.parametrize("bad", [
    b"$1,CUT*0000\r\n",  # SEQ of one digit
    b"$0a,CUT*0000\r\n",  # lowercase SEQ
    b"$01,CU*0000\r\n",  # TYPE of two letters
    b"$01,cut*0000\r\n",  # lowercase TYPE
    b"$01,CRD,*0000\r\n",  # empty field
    b"$01,CRD,A\tS*0000\r\n",  # control character in a field
    b"$01,CUT*D99\r\n",  # CRC of three digits
    b"$01,CUT\r\n",  # no CRC
    b"$01,CUT*D99F\n",  # no CR
])
def test_icd_2_bad_syntax_is_dropped_and_counted(bad: bytes) -> None:
    d = Decoder()
    assert d.feed(bad) == []
    assert d.stats.bad_syntax + d.stats.bad_crc == 1


def test_icd_2_lowercase_crc_digits_are_bad_syntax() -> None:
    d = Decoder()
    assert d.feed(b"$05,CUT*d99f\r\n") == []
    assert d.stats.bad_syntax == 1


def test_icd_2_fields_are_printable_ascii_without_dollar_star_comma() -> None:
    for ch in "$*,\x7f\x1f":
        with pytest.raises(ValueError):
            encode(1, "ERR", f"A{ch}B")
    wire = encode(1, "ERR", "JAM", "lid open #2 (left) ~!")
    assert Decoder().feed(wire)[0].fields == ("JAM", "lid open #2 (left) ~!")


def test_icd_2_sequence_is_two_uppercase_hex_digits() -> None:
    assert encode(0xAB, "CUT").startswith(b"$AB,")
    with pytest.raises(ValueError):
        encode(256, "CUT")


def test_decoder_byte_at_a_time_equals_whole() -> None:
    stream = b"".join(encode(i, "CRD", "9C") for i in range(20))
    d = Decoder()
    out = [f for b in stream for f in d.feed(bytes([b]))]
    assert len(out) == 20 and d.stats.frames == 20 and d.stats.dropped == 0


_frames = st.builds(
    lambda seq, t, fl: encode(seq, t, *fl),
    st.integers(0, 255),
    st.sampled_from(["CRD", "CUT", "EMP", "ERR", "HEL", "STA", "ACK"]),
    st.lists(st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E,
                                            blacklist_characters="$*,"),
                     min_size=1, max_size=8), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.lists(st.integers(1, 50), max_size=20))
def test_fuzz_decoder_never_raises_on_any_bytes(data: bytes, cuts: list[int]) -> None:
    d = Decoder()
    i = 0
    for c in cuts:
        d.feed(data[i:i + c])
        i += c
    d.feed(data[i:])
    st_ = d.stats
    assert st_.bytes_in == len(data)
    assert st_.frames + st_.dropped <= data.count(b"$")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_frames, st.binary(max_size=30).map(lambda b: b.replace(b"$", b""))),
                max_size=10),
       st.integers(1, 64))
def test_fuzz_frames_survive_junk_between_them_in_any_chunking(
        items: list[tuple[bytes, bytes]], chunk: int) -> None:
    """Junk without a '$' between frames never costs a frame, however the bytes arrive."""
    stream = b"".join(junk + frame for frame, junk in items)
    d = Decoder()
    got = [frame_bytes(f) for i in range(0, len(stream), chunk)
           for f in d.feed(stream[i:i + chunk])]
    assert got == [frame for frame, _ in items]


@settings(max_examples=200, deadline=None)
@given(_frames, st.integers(0, 79), st.integers(0, 255))
def test_fuzz_a_corrupted_byte_never_yields_a_wrong_frame(frame: bytes, pos: int,
                                                           value: int) -> None:
    """Any single-byte change is either harmless (same byte) or the frame is dropped."""
    pos %= len(frame)
    bad = bytearray(frame)
    bad[pos] = value
    out = Decoder().feed(bytes(bad) + encode(0, "EMP"))
    if bytes(bad) == frame:
        assert len(out) == 2 and frame_bytes(out[0]) == frame
    else:  # CRC-16 catches every error burst of 16 bits or fewer
        assert out == [Frame(0, "EMP")]
