"""The simulated shoe against the ICD, over a real pseudo-terminal, judged by the small
independent controller of shoe_support.py (its own CRC and parser).

Timings: the tests over the pty run the protocol at SCALE=0.2 (retransmit 50 ms, HBT
200 ms) and check order and content, never how long something took: a loaded machine
delays any thread by any amount. The times the ICD prescribes (retransmission every 250 ms,
five sends, the retry after a link fault, HBT every 1000 ms, a card every pace) are checked
exactly on the simulator's machine with a clock the test turns (``ClockedShoe``). A check
that something does NOT happen waits for the answer to a later QRY: the shoe has gone past
the point by then.
"""

from __future__ import annotations

import itertools
import os
import tty

import pytest
from shoe_support import FAST, SCALE, ClockedShoe, IndependentController
from waiting import wait_for

from drivers.shoe.reliability import ICD_TIMING

SCRIPT = ["AS", "KD", "7C", "2H", "9S", "QH", "3D", "TC"]


def unlock(ctrl: IndependentController) -> None:
    assert ctrl.command("ULK").type == "ACK"


def fresh(rxs: list) -> list:
    """Reliable frames without retransmissions (a resend repeats the previous SEQ; on a
    loaded machine the shoe may resend before our ACK reaches it)."""
    out: list = []
    for r in rxs:
        if r.type in ("ACK", "NAK", "HBT"):
            continue
        if out and r.seq == out[-1].seq and r.type == out[-1].type and r.type != "HEL":
            continue
        out.append(r)
    return out


def cards(rxs: list) -> list[str]:
    return [r.fields[0] for r in fresh(rxs) if r.type == "CRD"]


def test_icd_4_hel_at_start_with_protocol_1_and_seq_00(shoe) -> None:
    _sim, ctrl = shoe(greet=False)
    hel = ctrl.expect("HEL")
    assert hel.seq == 0 and hel.fields[0] == "1" and len(hel.fields) == 4


def test_icd_4_hel_again_on_reconnect_sequence_restarts(shoe, controller_factory) -> None:
    sim, ctrl = shoe(cards=SCRIPT, pace_s=0.2, cut_after=99)
    unlock(ctrl)
    ctrl.expect("CRD")
    ctrl.close()
    wait_for("the shoe to see the controller leave", lambda: not sim.status()["connected"])
    again = controller_factory(sim.path)
    hel = again.expect("HEL")
    assert hel.seq == 0
    assert again.command("QRY").type == "ACK"
    sta = again.expect("STA")
    assert sta.seq == 1 and sta.fields[0] == "LOCKED"  # gate locked again after HEL


def test_icd_3_answer_carries_the_seq_of_the_frame_answered(shoe) -> None:
    _sim, ctrl = shoe()
    ctrl.seq = 0x3C
    ans = ctrl.command("LED", "GREEN")
    assert ans.type == "ACK" and ans.seq == 0x3C


def test_icd_3_shoe_numbers_reliable_frames_from_00_by_one(shoe) -> None:
    _sim, ctrl = shoe(greet=False, cards=SCRIPT, pace_s=0.0)
    assert ctrl.expect("HEL").seq == 0
    unlock(ctrl)
    ctrl.expect("EMP")
    reliable = fresh(ctrl.log)
    assert [r.seq for r in reliable] == list(range(len(reliable)))
    assert [r.type for r in reliable] == ["HEL"] + ["CRD"] * 6 + ["CUT"] + ["CRD"] * 2 + ["EMP"]


def test_icd_3_shoe_sequence_wraps_ff_to_00(shoe) -> None:
    many = (SCRIPT * 40)[:300]
    _sim, ctrl = shoe(cards=many, pace_s=0.0, cut_after=1000)
    unlock(ctrl)
    ctrl.expect("EMP")
    seqs = [r.seq for r in fresh(ctrl.log) if r.type in ("CRD", "EMP")]
    assert seqs[:3] == [1, 2, 3]
    wrap = seqs.index(0xFF)
    assert seqs[wrap + 1] == 0x00 and cards(ctrl.log) == many


def wait_link_fault(sim, ctrl: IndependentController) -> list:
    """Read (without answering) until the shoe reports its link fault; what it sent."""
    got: list = []

    def faulted() -> bool:
        got.extend(ctrl.collect(0.02))
        return bool(sim.status()["link_fault"])

    wait_for("the shoe's link fault", faulted, every=0)
    return got + ctrl.collect(0.02)  # what it wrote before it said so is in the pty


def test_icd_3_shoe_retransmits_unanswered_frame_then_link_fault(shoe) -> None:
    """Over the pty: an unanswered HEL is sent again with the same SEQ, at least five
    times, then the shoe reports its link fault (red LED). The times: the next test."""
    sim, ctrl = shoe(greet=False, auto_ack=False)
    hels = [r for r in wait_link_fault(sim, ctrl) if r.type == "HEL"]
    assert len(hels) >= 5 and {r.seq for r in hels} == {0}
    assert sim.status()["link_fault"] is True and sim.status()["led"] == "RED"


def test_icd_3_retransmit_every_250ms_5_sends_then_retry_after_the_fault() -> None:
    """ICD timing on a clock the test turns: sends at 0, 250, 500, 750, 1000 ms, the link
    fault at 1250 ms, the frame kept and tried again fault_retry_s later (2250 ms)."""
    shoe = ClockedShoe(ack=False)
    shoe.run_until(1.24)
    assert not shoe.machine.link_fault
    shoe.run_until(1.25)
    assert shoe.machine.link_fault and shoe.machine.status(1.25)["led"] == "RED"
    shoe.run_until(2.5)
    r, retry = ICD_TIMING.retransmit_s, ICD_TIMING.fault_retry_s
    assert shoe.times("HEL") == pytest.approx([0, r, 2 * r, 3 * r, 4 * r, 5 * r + retry])
    assert {f.seq for _t, f in shoe.sent if f.type == "HEL"} == {0}


def test_icd_3_shoe_link_fault_keeps_the_frame_queued(shoe) -> None:
    sim, ctrl = shoe(greet=False, auto_ack=False)
    wait_link_fault(sim, ctrl)
    assert sim.status()["link_fault"]
    ctrl.auto_ack = True
    ctrl.expect("HEL")  # still queued, sent again
    wait_for("the HEL to be answered", lambda: sim.status()["pending_frames"] == 0)
    assert not sim.status()["link_fault"]


def test_icd_3_shoe_stop_and_wait_in_order(shoe) -> None:
    _sim, ctrl = shoe(auto_ack=False, cards=SCRIPT, pace_s=0.0, cut_after=99)
    ctrl.write(ctrl.frame(0, "ACK"))  # the HEL
    ctrl.command("ULK")
    first = ctrl.expect("CRD")
    resends = [ctrl.expect("CRD"), ctrl.expect("CRD")]  # two more before our ACK...
    assert [r.seq for r in resends] == [first.seq] * 2  # ...are the same card again
    ctrl.auto_ack = True
    ctrl.write(ctrl.frame(first.seq, "ACK"))
    ctrl.expect("EMP")
    seen: list[str] = []
    last_seq = None
    for r in ctrl.log:
        if r.type == "CRD" and r.seq != last_seq:
            seen.append(r.fields[0])
            last_seq = r.seq
    assert seen == SCRIPT


def test_icd_3_shoe_acks_a_duplicate_again_and_does_not_act(shoe) -> None:
    sim, ctrl = shoe()
    mark = len(ctrl.log)
    seq = ctrl.send("QRY")
    ctrl.send("QRY", seq=seq)
    later = ctrl.send("QRY")  # answered after the shoe has dealt with the first two

    def both_answered() -> bool:
        ctrl.pump(0.02)
        return sum(r.type == "STA" for r in ctrl.log[mark:]) >= 2

    wait_for("the answers to both QRYs", both_answered, every=0)
    rxs = ctrl.log[mark:]
    assert [r.seq for r in rxs if r.type == "ACK"] == [seq, seq, later]
    assert [f.type for f in sim.received()] == ["QRY", "QRY"]  # the duplicate not acted on


def test_icd_3_hbt_seq_is_the_last_reliable_frame_sent(shoe) -> None:
    _sim, ctrl = shoe(cards=SCRIPT, pace_s=0.0)
    unlock(ctrl)
    emp = ctrl.expect("EMP")
    hbt = ctrl.expect("HBT")
    assert hbt.seq == emp.seq and hbt.fields[1] == "EMPTY" and hbt.fields[0].isdigit()


def test_icd_3_hbt_every_1000ms() -> None:
    """ICD timing on a clock the test turns: HBT every 1000 ms after the HEL, carrying the
    uptime in seconds and the state."""
    shoe = ClockedShoe()
    shoe.run_until(4.5)
    assert shoe.times("HBT") == pytest.approx([1.0, 2.0, 3.0, 4.0])
    beats = [f for _t, f in shoe.sent if f.type == "HBT"]
    assert [f.fields for f in beats] == [(str(n), "LOCKED") for n in (1, 2, 3, 4)]


def test_icd_3_shoe_answers_every_command_with_its_seq(shoe) -> None:
    """Each command is answered with its own SEQ (how fast the simulator answers is not a
    property of the table; the driver's own answer time is a `make bench shoe` figure)."""
    _sim, ctrl = shoe(timing=ICD_TIMING)
    for _ in range(10):
        seq = ctrl.send("LED", "AMBER")
        assert ctrl.expect("ACK", where=lambda r, s=seq: r.seq == s).seq == seq


def test_icd_5_gate_locked_after_power_up(shoe) -> None:
    _sim, ctrl = shoe(cards=SCRIPT, pace_s=0.01)
    assert ctrl.command("QRY").type == "ACK"
    assert ctrl.expect("STA").fields == ["LOCKED", "0"]  # nothing dealt since power-up
    assert cards(ctrl.log) == []


def test_icd_5_unlocked_deals_the_cards_in_order(shoe) -> None:
    _sim, ctrl = shoe(cards=SCRIPT, pace_s=0.02, cut_after=100)
    unlock(ctrl)
    for _ in range(5):
        ctrl.expect("CRD")
    assert cards(ctrl.log)[:5] == SCRIPT[:5]


def test_icd_5_unlocked_deals_a_card_every_pace() -> None:
    """On a clock the test turns: pace 0.1 s, one card every 0.1 s (to the clock's step)
    from the ULK on, each ACKed at once."""
    shoe = ClockedShoe(cards=SCRIPT, pace_s=0.1, cut_after=100)
    shoe.command(0, "ACK")  # the HEL
    shoe.command(0, "ULK")
    shoe.run_until(1.0)
    t = shoe.times("CRD")
    assert [f.fields[0] for _t, f in shoe.sent if f.type == "CRD"] == SCRIPT
    gaps = [b - a for a, b in itertools.pairwise([0.0, *t])]
    assert all(0.1 - 1e-6 <= g <= 0.1 + ClockedShoe.STEP_S + 1e-6 for g in gaps), gaps


def test_icd_5_no_crd_follows_lck_until_ulk(shoe) -> None:
    """After the ACK of LCK no new card (a resend of the one in flight is fine) up to the
    answer of a QRY sent after it: the shoe has gone past the point by then."""
    _sim, ctrl = shoe(cards=SCRIPT * 4, pace_s=0.02, cut_after=1000)
    unlock(ctrl)
    ctrl.expect("CRD")
    lck_seq = ctrl.send("LCK")
    ack = ctrl.expect("ACK", where=lambda r: r.seq == lck_seq)
    assert ctrl.command("QRY").type == "ACK"
    sta = ctrl.expect("STA")
    at_ack = next(i for i, r in enumerate(ctrl.log) if r is ack)
    at_sta = next(i for i, r in enumerate(ctrl.log) if r is sta)
    before = {r.seq for r in ctrl.log[:at_ack] if r.type == "CRD"}
    after = [r for r in ctrl.log[at_ack:at_sta] if r.type == "CRD" and r.seq not in before]
    assert after == []
    assert sta.fields == ["LOCKED", str(len(cards(ctrl.log)))]
    unlock(ctrl)
    ctrl.expect("CRD")


def test_icd_5_new_resets_count_and_clears_cut_and_emp(shoe) -> None:
    _sim, ctrl = shoe(pace_s=0.0, decks=1, penetration=0.5)
    assert ctrl.command("NEW", "1").type == "ACK"
    unlock(ctrl)
    ctrl.expect("EMP")
    assert ctrl.command("LCK").type == "ACK"
    ctrl.command("QRY")
    assert ctrl.expect("STA").fields == ["EMPTY", "52"]
    assert ctrl.command("NEW", "2").type == "ACK"
    ctrl.command("QRY")
    assert ctrl.expect("STA").fields == ["LOCKED", "0"]
    unlock(ctrl)
    ctrl.expect("CUT")
    types = [r.type for r in fresh(ctrl.log) if r.type in ("CRD", "CUT")]
    assert types.count("CUT") == 2  # one in each shoe
    assert types.index("CUT") == 26  # half of one deck, then 26 more, then half of two
    assert types[27:].index("CUT") == 26 + 52


def test_icd_4_cut_card_at_the_configured_penetration(shoe) -> None:
    _sim, ctrl = shoe(pace_s=0.0, decks=1, penetration=0.75)
    ctrl.command("NEW", "1")
    unlock(ctrl)
    ctrl.expect("EMP")
    types = [r.type for r in fresh(ctrl.log) if r.type in ("CRD", "CUT", "EMP")]
    assert types.index("CUT") == 39 and types.count("CRD") == 52 and types[-1] == "EMP"


def test_icd_4_emp_when_the_shoe_is_empty_and_no_card_after(shoe) -> None:
    _sim, ctrl = shoe(cards=SCRIPT[:3], pace_s=0.0, cut_after=99)
    unlock(ctrl)
    ctrl.expect("EMP")
    assert ctrl.command("QRY").type == "ACK"
    assert ctrl.expect("STA").fields == ["EMPTY", "3"]  # answered after the EMP...
    assert cards(ctrl.log) == SCRIPT[:3]  # ...and no card came between them


def test_icd_5_qry_is_acked_then_answered_by_sta(shoe) -> None:
    _sim, ctrl = shoe(cards=SCRIPT * 5, pace_s=0.05, cut_after=99)
    unlock(ctrl)
    ctrl.expect("CRD")
    ctrl.command("LCK")
    mark = len(ctrl.log)
    seq = ctrl.send("QRY")
    sta = ctrl.expect("STA")
    kinds = [(r.type, r.seq) for r in ctrl.log[mark:] if r.type in ("ACK", "STA")]
    assert kinds[0] == ("ACK", seq) and kinds[-1] == ("STA", sta.seq)
    assert sta.fields[0] == "LOCKED" and int(sta.fields[1]) == len(cards(ctrl.log))


def test_icd_5_rst_is_acked_then_hel_and_the_gate_is_locked(shoe) -> None:
    _sim, ctrl = shoe(cards=SCRIPT * 3, pace_s=0.02, cut_after=99)
    unlock(ctrl)
    ctrl.expect("CRD")
    seq = ctrl.send("RST")
    ack = ctrl.expect("ACK", where=lambda r: r.seq == seq)
    hel = ctrl.expect("HEL")
    assert hel.t >= ack.t and hel.seq == 0
    ctrl.command("QRY")
    sta = ctrl.expect("STA")
    assert sta.fields[0] == "LOCKED"
    at_hel = next(i for i, r in enumerate(ctrl.log) if r is hel)
    assert cards(ctrl.log[at_hel:]) == []  # no card from the HEL up to the answer


@pytest.mark.parametrize("mode", ["OFF", "GREEN", "AMBER", "RED", "BLINK"])
def test_icd_5_led_modes_are_accepted(shoe, mode: str) -> None:
    sim, ctrl = shoe()
    assert ctrl.command("LED", mode).type == "ACK"
    assert sim.status()["led"] == mode


@pytest.mark.parametrize("frame, reason", [
    (("XYZ",), "UNKNOWN"),
    (("CRD", "AS"), "UNKNOWN"),
    (("NEW", "0"), "BADARG"),
    (("NEW", "9"), "BADARG"),
    (("NEW", "six"), "BADARG"),
    (("NEW",), "BADARG"),
    (("LED", "PURPLE"), "BADARG"),
    (("LCK", "NOW"), "BADARG"),
])
def test_icd_4_shoe_naks_unknown_and_bad_arguments(shoe, frame: tuple[str, ...],
                                                  reason: str) -> None:
    _sim, ctrl = shoe()
    ans = ctrl.command(*frame)
    assert (ans.type, ans.fields) == ("NAK", [reason])


def test_icd_4_shoe_naks_state_new_while_unlocked_and_ulk_while_faulted(shoe) -> None:
    sim, ctrl = shoe(cards=SCRIPT, pace_s=5.0)
    unlock(ctrl)
    ans = ctrl.command("NEW", "6")
    assert (ans.type, ans.fields) == ("NAK", ["STATE"])
    sim.inject("jam")
    ctrl.expect("ERR", where=lambda r: r.fields == ["JAM"])
    ctrl.command("LCK")
    ans = ctrl.command("ULK")
    assert (ans.type, ans.fields) == ("NAK", ["STATE"])
    ctrl.command("RST")  # a reset clears the jam
    ctrl.expect("HEL")
    assert ctrl.command("ULK").type == "ACK"


def test_icd_2_shoe_drops_bad_crc_and_overlong_frames_unanswered(shoe) -> None:
    sim, ctrl = shoe()
    good = ctrl.frame(0, "QRY")
    ctrl.write(good[:-6] + b"0000\r\n")
    ctrl.write(b"$01,LED," + b"G" * 90 + b"*0000\r\n")
    ctrl.write(b"$02,LE$")  # restarted by '$'
    mark = len(ctrl.log)
    ctrl.write(ctrl.frame(0, "QRY"))  # the "retransmission" is accepted
    ctrl.expect("STA")
    assert [(r.type, r.seq) for r in ctrl.log[mark:] if r.type in ("ACK", "NAK")] == [
        ("ACK", 0)]  # the good frame's answer, and none to the bad ones before it
    dec = sim.status()["decoder"]
    assert dec["bad_crc"] == 1 and dec["overlong"] == 1


@pytest.mark.parametrize("kind, consumed", [("misread", 1), ("double", 2)])
def test_icd_4_err_misread_and_double_consume_cards(shoe, kind: str, consumed: int) -> None:
    sim, ctrl = shoe(cards=SCRIPT, pace_s=0.0, cut_after=99)
    sim.inject(kind)
    ctrl.expect("ERR", where=lambda r: r.fields == [kind.upper()])
    unlock(ctrl)
    ctrl.expect("EMP")
    assert cards(ctrl.log) == SCRIPT[consumed:]


@pytest.mark.parametrize("code", ["JAM", "LID", "SENSOR"])
def test_icd_4_sticky_faults_put_the_shoe_in_fault_state(shoe, code: str) -> None:
    sim, ctrl = shoe(cards=SCRIPT, pace_s=0.01, cut_after=99)
    unlock(ctrl)
    sim.inject(code.lower())
    err = ctrl.expect("ERR", where=lambda r: r.fields == [code])
    ctrl.command("QRY")
    sta = ctrl.expect("STA")
    assert sta.fields[0] == "FAULT"
    at_err = next(i for i, r in enumerate(ctrl.log) if r is err)
    before = {r.seq for r in ctrl.log[:at_err] if r.type == "CRD"}
    new = [r for r in ctrl.log[at_err:] if r.type == "CRD" and r.seq not in before]
    assert new == []  # no card from the fault up to the answer (a resend is fine)
    assert int(sta.fields[1]) == len(cards(ctrl.log))


def test_icd_1_pty_is_raw_8bit_clean(sim_factory) -> None:
    """ICD §1: the byte stream is carried unchanged (no echo, no CR/LF translation)."""
    sim = sim_factory()
    fd = os.open(sim.path, os.O_RDWR | os.O_NOCTTY)
    try:
        attrs = tty.tcgetattr(fd)
        assert not attrs[3] & tty.ECHO and not attrs[1] & tty.OPOST
    finally:
        os.close(fd)


def test_scale_constant_is_what_the_docstring_says() -> None:
    assert SCALE == 0.2 and FAST.retransmit_s == pytest.approx(0.05)
