"""Shoe ICD §3 (reliability) and §4 (HEL, frame meanings) on the pure state machines.

The clock is a number passed in, so every timing rule is checked exactly, with the ICD's
own times (250 ms, 5 sends, 1000 ms, 3000 ms) and no sleeping.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.shoe.framing import Decoder, Frame, encode
from drivers.shoe.reliability import (
    ICD_TIMING,
    Accepted,
    Answered,
    Duplicate,
    Link,
    PeerAlive,
    PeerSilent,
    SendFault,
)
from drivers.shoe.session import ControllerSession


def wires(link: Link) -> list[bytes]:
    return [o.data for o in link.take_output()]


def frames(link: Link) -> list[Frame]:
    return [o.frame for o in link.take_output()]


def test_icd_3_reliable_frames_numbered_from_00_by_one() -> None:
    link = Link()
    link.send("HEL", "1", "M", "1", "S", now=0)
    assert frames(link) == [Frame(0, "HEL", ("1", "M", "1", "S"))]
    link.receive(Frame(0, "ACK"), 0.01)
    link.send("CRD", "AS", now=0.02)
    assert [f.seq for f in frames(link)] == [1]


def test_icd_3_ack_nak_hbt_are_not_numbered_reliable_frames() -> None:
    link = Link()
    with pytest.raises(ValueError):
        link.send("ACK", now=0)
    link.send("CRD", "AS", now=0)
    link.take_output()
    link.heartbeat("1", "READY")
    assert frames(link) == [Frame(0, "HBT", ("1", "READY"))]
    link.receive(Frame(0, "ACK"), 0.01)
    link.send("CRD", "KD", now=0.02)
    assert frames(link)[0].seq == 1  # the HBT took no number


def test_icd_3_sequence_wraps_ff_to_00() -> None:
    link = Link()
    seqs = []
    for i in range(258):
        f = link.send("CRD", "AS", now=i)
        seqs.append(f.seq)
        link.receive(Frame(f.seq, "ACK"), i + 0.01)
    assert seqs[254:258] == [0xFE, 0xFF, 0x00, 0x01]


def test_icd_3_answer_carries_seq_of_the_frame_answered() -> None:
    """ICD §3: the receiver answers ACK (or NAK) whose SEQ is the SEQ of the frame."""
    link = Link()
    (n,) = link.receive(Frame(7, "QRY"), 0)[1:]
    assert isinstance(n, Accepted)
    link.answer(n.frame)
    assert wires(link) == [encode(7, "ACK")]
    (n,) = link.receive(Frame(8, "ULK"), 0)
    link.answer(n.frame, "STATE")
    assert wires(link) == [b"$08,NAK,STATE*" + wires_crc("08,NAK,STATE") + b"\r\n"]


def wires_crc(body: str) -> bytes:
    from drivers.shoe.framing import crc16

    return f"{crc16(body.encode()):04X}".encode()


def test_icd_3_stop_and_wait_one_in_flight_later_frames_queue_in_order() -> None:
    link = Link()
    for card in ("AS", "KD", "7C"):
        link.send("CRD", card, now=0)
    assert [f.fields for f in frames(link)] == [("AS",)]  # only one in flight
    link.poll(0.1)
    assert frames(link) == []
    for seq, card in ((0, "KD"), (1, "7C")):
        (ans,) = [n for n in link.receive(Frame(seq, "ACK"), 0.2) if isinstance(n, Answered)]
        assert ans.ok
        assert [f.fields for f in frames(link)] == [(card,)]
    link.receive(Frame(2, "ACK"), 0.3)
    assert link.pending == 0


def test_icd_3_retransmit_every_250ms_up_to_5_sends_then_link_fault() -> None:
    link = Link(ICD_TIMING, watch_peer=True)
    link.receive(Frame(0, "HBT", ("1", "READY")), 0.0)  # the peer is up
    link.send("NEW", "6", now=0.0)
    sent_at = [0.0]
    link.take_output()
    t = 0.0
    faults = []
    while t < 3.0:
        t = round(t + 0.01, 2)
        notices = link.poll(t)
        faults += [n for n in notices if isinstance(n, SendFault)]
        if [o for o in link.take_output() if o.kind == "reliable"]:
            sent_at.append(t)
        if faults:
            break
    assert sent_at[:5] == [0.0, 0.25, 0.5, 0.75, 1.0]  # 5 sends in all, same SEQ
    assert faults and t == pytest.approx(1.25)
    assert link.pending == 1  # kept queued


def test_icd_3_after_link_fault_frame_stays_queued_and_is_retried() -> None:
    link = Link(ICD_TIMING)
    link.send("CRD", "AS", now=0.0)
    for k in range(1, 7):
        link.poll(k * 0.25)
    link.take_output()
    link.poll(1.25 + ICD_TIMING.fault_retry_s)
    assert frames(link) == [Frame(0, "CRD", ("AS",))]
    (ans,) = link.receive(Frame(0, "ACK"), 2.5)[-1:]
    assert isinstance(ans, Answered) and link.pending == 0


def test_icd_3_retransmission_repeats_the_same_seq() -> None:
    link = Link()
    link.send("CRD", "AS", now=0)
    link.send("CRD", "KD", now=0)
    first = frames(link)
    link.poll(0.25)
    again = link.take_output()
    assert [o.frame for o in again] == first and again[0].retransmit


def test_icd_3_duplicate_is_acked_again_and_not_acted_on() -> None:
    link = Link()
    notices = link.receive(Frame(3, "NEW", ("6",)), 0)
    accepted = [n for n in notices if isinstance(n, Accepted)]
    link.answer(accepted[0].frame)
    assert wires(link) == [encode(3, "ACK")]
    (dup,) = link.receive(Frame(3, "NEW", ("6",)), 0.3)
    assert isinstance(dup, Duplicate)
    assert wires(link) == [encode(3, "ACK")]  # answered again, by the link, not acted on


def test_icd_3_duplicate_of_a_nak_gets_the_same_nak() -> None:
    link = Link()
    (n,) = link.receive(Frame(4, "NEW", ("9",)), 0)[1:]
    link.answer(n.frame, "BADARG")
    first = wires(link)
    link.receive(Frame(4, "NEW", ("9",)), 0.3)
    assert wires(link) == first


def test_icd_3_hbt_seq_is_that_of_the_last_reliable_frame_sent() -> None:
    link = Link()
    for i in range(3):
        link.send("CRD", "AS", now=i)
        link.receive(Frame(i, "ACK"), i + 0.1)
    link.take_output()
    assert link.heartbeat("3", "READY").seq == 2


def test_icd_3_controller_link_down_after_3000ms_without_valid_frame() -> None:
    link = Link(ICD_TIMING, watch_peer=True)
    assert isinstance(link.receive(Frame(0, "HBT", ("1", "READY")), 10.0)[0], PeerAlive)
    assert link.poll(12.99) == []
    assert link.next_deadline() == pytest.approx(13.0)
    (down,) = link.poll(13.0)
    assert isinstance(down, PeerSilent)
    assert isinstance(link.receive(Frame(0, "HBT", ("4", "READY")), 14.0)[0], PeerAlive)


def test_icd_3_invalid_bytes_do_not_keep_the_link_up() -> None:
    s = ControllerSession(ICD_TIMING)
    s.feed(encode(0, "HEL", "1", "M", "1", "S"), 0.0)
    for k in range(1, 30):  # 2.9 s of bad frames
        s.feed(b"$01,HBT,1,READY*0000\r\n", k * 0.1)
        s.poll(k * 0.1)
    assert [e.kind for e in s.poll(3.0)] == ["link-down"]


def test_icd_4_hel_restarts_sequence_numbers_on_the_controller() -> None:
    """ICD §3/§4: the controller numbers its first frame after receiving a HEL 00."""
    s = ControllerSession(ICD_TIMING)
    s.feed(encode(0, "HEL", "1", "M", "1", "S"), 0.0)
    s.take_output()
    s.command("NEW", "6", now=0.1)
    s.feed(encode(0, "ACK"), 0.11)
    s.command("ULK", now=0.2)
    assert s.take_output() == encode(0, "NEW", "6") + encode(1, "ULK")
    s.feed(encode(9, "HEL", "1", "M", "1", "S"), 0.3)  # the shoe rebooted
    out = s.take_output()
    assert out == encode(9, "ACK")
    s.command("QRY", now=0.4)
    assert s.take_output() == encode(0, "QRY")


def test_icd_7_example_dialogue_from_the_controller_side() -> None:
    """ICD §7 replayed against the controller: its answers and commands, byte for byte."""
    s = ControllerSession(ICD_TIMING)
    ev = s.feed(b"$00,HEL,1,ETG-SHOE-S1,2.3.0,SN004211*38DA\r\n", 0.0)
    assert [e.kind for e in ev] == ["link-up", "hello"]
    assert s.take_output() == b"$00,ACK*DEA3\r\n"
    s.command("NEW", "6", now=0.01)
    assert s.take_output() == b"$00,NEW,6*D2DD\r\n"
    s.feed(b"$00,ACK*DEA3\r\n", 0.02)
    s.command("ULK", now=0.03)
    assert s.take_output() == b"$01,ULK*FB6F\r\n"
    s.feed(b"$01,ACK*74F2\r\n", 0.04)
    ev = s.feed(b"$01,CRD,AS*2702\r\n", 0.2)
    assert [(e.kind, e.card) for e in ev] == [("card", "AS")]
    assert s.take_output() == b"$01,ACK*74F2\r\n"
    s.feed(b"$02,CRD,TD*7127\r\n", 0.4)
    assert s.take_output() == b"$02,ACK*9A20\r\n"
    assert s.feed(b"$02,HBT,5123,READY*EABB\r\n", 1.0) == []
    ev = s.feed(b"$03,ERR,MISREAD*9DF2\r\n", 1.1)
    assert [(e.kind, e.code) for e in ev] == [("fault", "MISREAD")]
    assert s.take_output() == b"$03,ACK*3071\r\n"


def test_icd_3_controller_does_not_act_twice_on_a_retransmitted_card() -> None:
    s = ControllerSession(ICD_TIMING)
    s.feed(encode(0, "HEL", "1", "M", "1", "S"), 0)
    cards = s.feed(encode(1, "CRD", "AS") * 2, 0.1)
    assert [e.card for e in cards if e.kind == "card"] == ["AS"]
    assert s.take_output() == encode(0, "ACK") + encode(1, "ACK") * 2


@pytest.mark.parametrize("body, reason", [
    ("05,XYZ", "UNKNOWN"),
    ("05,CRD,1S", "BADARG"),
    ("05,CRD", "BADARG"),
    ("05,HEL,2,M,1,S", "BADARG"),
    ("05,STA,BUSY,3", "BADARG"),
    ("05,CUT,X", "BADARG"),
])
def test_icd_4_frames_the_controller_refuses_are_naked_and_tilt(body: str, reason: str) -> None:
    from drivers.shoe.framing import encode_body

    s = ControllerSession(ICD_TIMING)
    s.feed(encode(0, "HEL", "1", "M", "1", "S"), 0)
    s.take_output()
    events = s.feed(encode_body(body), 0.1)
    assert [(e.kind, e.code) for e in events] == [("fault", "PROTOCOL")]
    assert events[0].raw and s.take_output() == encode(5, "NAK", reason)


def test_icd_4_every_shoe_frame_becomes_its_event() -> None:
    s = ControllerSession(ICD_TIMING)
    stream = b"".join([
        encode(0, "HEL", "1", "ETG-SHOE-S1", "2.3.0", "SN004211"), encode(1, "CRD", "TD"),
        encode(2, "CUT"), encode(3, "EMP"), encode(4, "ERR", "JAM", "left roller"),
        encode(5, "STA", "EMPTY", "312"),
    ])
    got = [e.to_dict() for e in s.feed(stream, 0)]
    assert [g["event"] for g in got] == ["link-up", "hello", "card", "cut", "empty", "fault",
                                         "status"]
    assert got[1]["serial"] == "SN004211" and got[2]["card"] == "TD"
    assert got[5]["code"] == "JAM" and got[5]["detail"] == "left roller"
    assert got[6]["state"] == "EMPTY" and got[6]["count"] == 312


def test_resync_sends_rst_when_attaching_to_a_running_shoe() -> None:
    s = ControllerSession(ICD_TIMING)
    s.feed(encode(0x42, "HBT", "77", "READY"), 0.0)
    s.poll(0.0)
    assert s.take_output() == encode(0, "RST")
    s.feed(encode(0, "ACK"), 0.01)
    s.poll(2.0)
    assert s.take_output() == encode(1, "RST")  # no HEL yet: the first RST was a duplicate
    s.feed(encode(0, "HEL", "1", "M", "1", "S"), 2.1)
    s.poll(9.0)
    assert s.synced and s.take_output() == encode(0, "ACK")


def test_decoder_stats_are_exposed_for_technicians() -> None:
    s = ControllerSession(ICD_TIMING)
    s.feed(b"junk$01,CRD,AS*0000\r\n", 0)
    assert isinstance(s.decoder, Decoder) and s.decoder.stats.bad_crc == 1


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(
    st.integers(0, 255),
    st.sampled_from(["HEL", "CRD", "CUT", "EMP", "ERR", "STA", "HBT", "ACK", "NAK", "XYZ"]),
    st.lists(st.sampled_from(["1", "AS", "ZZ", "READY", "7", "JAM", "x y"]), max_size=5),
    st.floats(0, 0.5)), max_size=40))
def test_fuzz_controller_session_never_raises_on_any_valid_frames(items) -> None:
    s = ControllerSession(ICD_TIMING)
    now = 0.0
    for seq, type_, fields, dt in items:
        now += dt
        s.feed(encode(seq, type_, *fields), now)
        s.poll(now)
        s.take_output()


def test_icd_7_example_dialogue_from_the_shoe_side() -> None:
    """ICD §7 replayed against the simulated shoe (pure machine, fake clock), byte for byte."""
    from drivers.shoe.sim_machine import ShoeMachine, SimSettings

    m = ShoeMachine(SimSettings(model="ETG-SHOE-S1", firmware="2.3.0", serial="SN004211",
                                cards=["AS", "TD", "9C"], pace_s=0.25, cut_after=99), 0.0)
    m.connect(0.0)
    assert m.take_output() == b"$00,HEL,1,ETG-SHOE-S1,2.3.0,SN004211*38DA\r\n"
    m.feed(b"$00,ACK*DEA3\r\n$00,NEW,6*D2DD\r\n", 0.01)
    assert m.take_output() == b"$00,ACK*DEA3\r\n"
    m.feed(b"$01,ULK*FB6F\r\n", 0.02)
    assert m.take_output() == b"$01,ACK*74F2\r\n"
    m.poll(0.3)
    assert m.take_output() == b"$01,CRD,AS*2702\r\n"
    m.feed(b"$01,ACK*74F2\r\n", 0.31)
    m.feed(b"$01,LCK*" + b"%04X" % crc16_of("01,LCK") + b"\r\n", 0.32)  # a duplicate SEQ
    assert m.take_output() == b"$01,ACK*74F2\r\n" and not m.gate_locked  # not acted on
    m.poll(0.6)
    assert m.take_output() == b"$02,CRD,TD*7127\r\n"
    m.feed(b"$02,ACK*9A20\r\n", 0.61)
    m.next_deal = float("inf")  # the dealer pauses
    m.poll(5123.0)  # uptime 5123 s, as in the example
    assert m.take_output() == b"$02,HBT,5123,READY*EABB\r\n"
    m.inject("misread", None, 5123.1)
    assert m.take_output() == b"$03,ERR,MISREAD*9DF2\r\n"


def crc16_of(body: str) -> int:
    from drivers.shoe.framing import crc16

    return crc16(body.encode())
