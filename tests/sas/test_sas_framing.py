"""SAS framing: message boundaries by content, by inter-byte timing and by the wakeup
bit; the parity marks of a real UART; BCD; and the link over a real pseudo-terminal."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from drivers.sas.crc import crc16
from drivers.sas.framing import Poll, Splitter, answer, bcd, from_bcd, long_poll
from drivers.sas.host import Host, HostPort, NoAnswer
from drivers.sas.link import SasLink
from drivers.sas.ports import ParityMarks, PtyPort


def feed_all(s: Splitter, data: bytes, t: float = 0.0, wake: bool | None = None
             ) -> list[Poll]:
    out = []
    for i, b in enumerate(data):
        p = s.feed(b, t, wake if i == 0 else (None if wake is None else False))
        if p is not None:
            out.append(p)
    return out


def test_general_poll_is_one_byte() -> None:
    polls = feed_all(Splitter(), bytes((0x81, 0x85)))
    assert [(p.address, p.general) for p in polls] == [(1, True), (5, True)]


def test_long_polls_framed_by_content_back_to_back() -> None:
    data = long_poll(3, 0x01) + long_poll(3, 0x11, crc=False) + long_poll(
        3, 0x2F, bytes((0, 0, 0x00, 0x0C)), variable=True) + bytes((0x83,))
    polls = feed_all(Splitter(), data)
    assert [(p.address, p.command) for p in polls] == [(3, 1), (3, 0x11), (3, 0x2F), (3, None)]
    assert polls[2].data == bytes((0, 0, 0x00, 0x0C))


def test_bad_crc_is_dropped_and_counted() -> None:
    msg = bytearray(long_poll(1, 0x01))
    msg[-1] ^= 0x01
    s = Splitter()
    assert feed_all(s, bytes(msg)) == []
    assert s.counts["bad_crc"] == 1
    assert [p.command for p in feed_all(s, long_poll(1, 0x02), t=0.1)] == [2]  # after a gap


def test_partial_message_dropped_after_the_interbyte_gap() -> None:
    s = Splitter(interbyte_s=0.005)
    msg = long_poll(1, 0x21, b"\x00\x00")
    for b in msg[:3]:
        assert s.feed(b, 0.0) is None
    # the rest comes 50 ms later: the partial is dropped, the rest does not frame
    got = [s.feed(b, 0.05) for b in msg[3:]]
    assert got == [None] * 3 and s.counts["partial"] == 1
    # and a whole poll after the next gap is taken
    assert [p.command for p in feed_all(s, msg, t=0.2)] == [0x21]


def test_unknown_command_skipped_to_the_next_boundary() -> None:
    s = Splitter()
    junk = bytes((1, 0x55, 0x81, 0x02, 0x03))  # 0x55: not a poll we frame
    assert feed_all(s, junk, t=0.0) == []
    assert s.counts["unknown"] == 1
    assert [p.general for p in feed_all(s, bytes((0x81,)), t=1.0)] == [True]


def test_wakeup_bit_begins_a_message_and_cuts_a_partial() -> None:
    s = Splitter()
    first = long_poll(1, 0x21, b"\x12\x34")
    assert feed_all(s, first[:3], wake=True) == []
    # a new wakeup byte arrives at once (same instant): the partial is dropped
    polls = feed_all(s, long_poll(1, 0x01), wake=True)
    assert [p.command for p in polls] == [1] and s.counts["partial"] == 1


def test_first_byte_without_wakeup_is_not_a_poll_on_a_uart() -> None:
    s = Splitter()
    data = long_poll(1, 0x01)
    assert [s.feed(b, 0.0, False) for b in data] == [None] * 4
    assert s.counts["no_wakeup"] == 1


def test_parity_marks_decode_wakeup_and_literal_ff() -> None:
    marks = ParityMarks()
    # FF 00 81: 0x81 with its ninth bit; FF FF: a literal FF; split across reads
    assert marks.decode(bytes((0xFF, 0x00))) == []
    assert marks.decode(bytes((0x81, 0x01, 0xFF))) == [(0x81, True), (0x01, False)]
    assert marks.decode(bytes((0xFF, 0x02))) == [(0xFF, False), (0x02, False)]


def test_bcd_round_trip_and_rollover() -> None:
    assert bcd(12345678, 4) == bytes.fromhex("12345678")
    assert bcd(123456789, 4) == bytes.fromhex("23456789")  # a meter rolls over
    assert from_bcd(bytes.fromhex("00001234")) == 1234
    with pytest.raises(ValueError):
        from_bcd(bytes.fromhex("1A"))


def test_answer_carries_a_crc_low_byte_first() -> None:
    raw = answer(1, 0x21, b"\xAB\xCD")
    assert raw[:4] == bytes((1, 0x21, 0xAB, 0xCD))
    assert int.from_bytes(raw[4:], "little") == crc16(raw[:4])


# -- over a real pseudo-terminal -----------------------------------------------------------


@pytest.fixture
def link() -> Iterator[tuple[SasLink, PtyPort]]:
    port = PtyPort()

    def respond(p: Poll) -> bytes | None:
        if p.general:
            return bytes((0x00,))
        if p.command == 0x11:
            return answer(p.address, 0x11, bcd(4321, 4))
        return None

    lk = SasLink(port, {1, 2}, respond).start()
    yield lk, port
    lk.stop()


def test_link_answers_over_a_pty_and_ignores_other_addresses(
        link: tuple[SasLink, PtyPort]) -> None:
    lk, port = link
    host = Host(HostPort.open(port.path), timeout=1.0)
    try:
        assert host.general_poll(1) == 0x00
        assert from_bcd(host.long(2, 0x11, crc=False, answer=8)) == 4321
        host.timeout = 0.1
        assert host.general_poll(9) is None  # another machine's address: silence
        with pytest.raises(NoAnswer):
            host.long(1, 0x21, b"\0\0", answer=6)  # unsupported here: no answer
    finally:
        host.port.close()
    assert lk.counts["other_address"] == 1 and lk.counts["unanswered"] == 1


def test_pty_stays_usable_while_hosts_come_and_go(link: tuple[SasLink, PtyPort]) -> None:
    lk, port = link
    for _ in range(3):
        host = Host(HostPort.open(port.path), timeout=1.0)
        assert host.general_poll(2) == 0x00
        host.port.close()
        time.sleep(0.05)  # nobody attached for a moment
    assert lk.counts["internal_error"] == 0


def test_a_uart_port_is_opened_with_space_parity_and_parity_marking() -> None:
    """On a real line the wakeup bit is the parity bit: space parity out, marked parity
    errors in. A pty keeps the input flags (it drops the hardware ones: the parity is
    read back from pyserial's setting)."""
    import os
    import termios

    import serial

    from drivers.sas.ports import UartPort

    master, slave = os.openpty()
    path = os.ttyname(slave)
    try:
        port = UartPort(path)
        try:
            iflag = termios.tcgetattr(port.fileno())[0]
            assert iflag & termios.INPCK and iflag & termios.PARMRK
            assert not iflag & (termios.IGNPAR | termios.ISTRIP)
            assert port._serial.parity == serial.PARITY_SPACE
            assert port._serial.baudrate == 19200 and port.has_wakeup
        finally:
            port.close()
    finally:
        os.close(master)
        os.close(slave)


def test_a_bad_crc_skips_the_rest_of_the_burst_until_the_gap() -> None:
    s = Splitter()
    bad = bytearray(long_poll(1, 0x01))
    bad[-1] ^= 0xFF
    assert feed_all(s, bytes(bad) + bytes((0x82,)) + long_poll(2, 0x02), t=0.0) == []
    assert [p.address for p in feed_all(s, bytes((0x82,)), t=0.1)] == [2]
