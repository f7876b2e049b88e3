"""Bad input gets nothing: wrong CRC, other addresses, truncated and oversize messages,
unknown polls, malformed transfers, floods and random bytes, at the byte level over a
real pseudo-terminal. Never a crash, never a money movement, every answer exactly the
protocol's length; and a lost host is an event."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from sas_rig import Rig, sas_table, wait_until

from drivers.sas import codes as C
from drivers.sas.aft import request_data
from drivers.sas.framing import bcd, long_poll
from drivers.sas.settings import SasSettings
from firmware.journal import EventCode


def silent(rig: Rig, wait: float = 0.15) -> bool:
    return rig.host.port.read(1, time.monotonic() + wait) == b""


def events(rig: Rig, code: EventCode) -> list[dict[str, object]]:
    return [r.body for r in rig.ctl.journal.records(kinds=["event"]) if r.code == int(code)]


def test_every_answer_has_exactly_the_protocols_length(tmp_path: Path) -> None:
    cases = [  # (poll bytes, answer length; None: variable, read from its length byte)
        (bytes((0x81,)), 1), (long_poll(1, 0x01), 1), (long_poll(1, 0x02), 1),
        (long_poll(1, 0x0F, crc=False), 28), (long_poll(1, 0x10, crc=False), 8),
        (long_poll(1, 0x1A, crc=False), 8), (long_poll(1, 0x1C, crc=False), 36),
        (long_poll(1, 0x1F, crc=False), 24),
        (long_poll(1, 0x2F, bytes((0, 0, 0x0C, 0x00)), variable=True), None),
        (long_poll(1, 0x6F, bytes((0, 0, 0x0C, 0x00)), variable=True), None),
        (long_poll(1, 0xAF, bytes((0, 0, 0x0C, 0x00)), variable=True), None),
        (long_poll(1, 0x74, bytes((0xFF, 0, 0, 0))), None),
        (long_poll(1, 0x72, b"\xff\x00", variable=True), None),
        (long_poll(1, 0x73, b"\xff", variable=True), None),
    ]
    with sas_table(tmp_path) as rig:
        for poll, length in cases:
            rig.host.port.drain()
            rig.host.port.send(poll)
            got = rig.host.port.read(3 if length is None else length,
                                     time.monotonic() + 2)
            assert got, f"no answer to {poll.hex()}"
            want = length if length is not None else 3 + got[2] + 2
            got += rig.host.port.read(want - len(got), time.monotonic() + 2)
            assert len(got) == want, (poll.hex(), got.hex())
            assert silent(rig, 0.05), f"more than the answer to {poll.hex()}"


def test_other_addresses_between_ours_are_ignored_silently(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        h = rig.host
        for _ in range(3):
            h.port.send(bytes((0x85,)))  # another machine's general poll
            assert silent(rig, 0.03)
            h.port.send(long_poll(5, 0x01))  # another machine's shutdown
            assert silent(rig, 0.03)
            h.port.send(long_poll(5, 0x55, b"\x01\x02"))  # a poll we cannot frame
            assert silent(rig, 0.03)
            assert h.general_poll(1) is not None  # ours, after the gap: answered
            assert h.long(1, 0x1A, crc=False, answer=8) == bcd(0, 4)
        rig.settle()
        assert not rig.ctl.floor_gate.closed_seats
        rig.settle()  # the link process's counters passed on
        assert rig.svc.link.counts["other_address"] >= 6


def test_a_general_poll_before_each_long_poll(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        assert rig.request("credits-in", seat=2, cents=777)[0]
        rig.settle()
        for _ in range(5):
            assert rig.host.general_poll(2) is not None
            assert rig.host.long(2, 0x1A, crc=False, answer=8) == bcd(777, 4)


def test_truncated_and_oversize_messages_are_dropped(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        h = rig.host
        h.port.send(long_poll(1, 0x01)[:3])  # a shutdown cut short
        time.sleep(0.05)  # past the inter-byte limit: dropped
        assert h.general_poll(1) is not None, rig.svc.link.stats()
        # a selected-meters poll with 255 data bytes of meter codes: too many, no answer
        h.port.send(long_poll(1, 0x2F, bytes(255), variable=True))
        assert silent(rig)
        # a variable-length poll whose length says more than comes: dropped on the gap
        h.port.send(long_poll(1, 0x72, bytes(80), variable=True)[:40])
        time.sleep(0.05)
        assert h.long(1, 0x1A, crc=False, answer=8) == bcd(0, 4)
        rig.settle()
        assert not rig.ctl.floor_gate.closed_seats
        rig.settle()  # the link process's counters passed on
        assert rig.svc.link.splitter.counts["partial"] >= 2


def test_malformed_transfers_get_nothing_and_move_nothing(tmp_path: Path) -> None:
    good = request_data(C.AFT_IN_HOUSE_TO_MACHINE, 500, 46001, b"OK1")
    bad_bcd = bytearray(good)
    bad_bcd[3] = 0xAB  # a nibble above 9 in the amount
    spaced = request_data(C.AFT_IN_HOUSE_TO_MACHINE, 500, 46001, b"A B")
    long_id = request_data(C.AFT_IN_HOUSE_TO_MACHINE, 500, 46001, b"X" * 21)
    with sas_table(tmp_path) as rig:
        for data in (bytes(bad_bcd), spaced, long_id, good[:-3], good + b"\x00"):
            rig.host.port.send(long_poll(1, 0x72, data, variable=True))
            assert silent(rig), data.hex()
        rig.settle()
        assert rig.meters()["credits_in"] == 0
        assert not events(rig, EventCode.SAS_TRANSFER_REFUSED)


def test_floods_fill_neither_the_inbox_nor_the_journal(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        before = len(list(rig.ctl.journal.records()))
        flood = long_poll(1, 0x01) * 300 + bytes((0x81,)) * 300
        flood += b"".join(long_poll(1, 0x72, request_data(
            C.AFT_IN_HOUSE_TO_HOST, 100 + i, 46001, f"F{i}".encode()), variable=True)
            for i in range(200))
        rig.host.port.send(flood)
        time.sleep(1.0)
        rig.host.port.drain()
        rig.settle()
        closes = events(rig, EventCode.FLOOR_COMMAND)
        assert len(closes) == 1  # one disable, however often it is asked
        # transfers out of an empty seat are refused by the machine itself: no records
        assert not events(rig, EventCode.SAS_TRANSFER_REFUSED)
        grown = len(list(rig.ctl.journal.records())) - before
        assert grown <= 5, grown
        assert rig.host.general_poll(1) is not None  # and it still answers


def test_random_bytes_never_crash_and_never_move_money(tmp_path: Path) -> None:
    rnd = random.Random(4646)
    with sas_table(tmp_path) as rig:
        assert rig.request("credits-in", seat=1, cents=10_000)[0]
        rig.settle()
        before = rig.meters()
        for _ in range(40):
            rig.host.port.send(bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 400))))
            time.sleep(0.003)
        time.sleep(0.2)
        rig.host.port.drain()
        rig.settle()
        assert rig.meters() == before
        rig.settle()  # the link process's counters passed on
        link = rig.svc.link
        assert link.counts["internal_error"] == 0 and link.counts["respond_error"] == 0
        assert rig.host.long(1, 0x1A, crc=False, answer=8) == bcd(10_000, 4)


def test_a_lost_host_is_an_event_and_may_close_the_seats(tmp_path: Path) -> None:
    settings = SasSettings(addresses=(1, 2), host_lost_s=1.0, disable_on_host_loss=True)
    with sas_table(tmp_path, settings) as rig:
        assert rig.host.general_poll(1) is not None
        assert rig.host.ack_only(2, 0x01)  # the host's own shutdown of seat 2
        wait_until("the host lost", lambda: events(rig, EventCode.SAS_HOST_LOST), 5)
        rig.settle()
        assert rig.ctl.floor_gate.closed_seats == {1, 2}
        assert rig.host.general_poll(1) is not None  # back
        wait_until("the host back", lambda: len(events(rig, EventCode.SAS_HOST_BACK)) >= 2)
        rig.settle()
        assert rig.ctl.floor_gate.closed_seats == {2}  # only its own shutdown stays


def test_broadcast_address_zero_is_ignored(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        rig.host.port.send(long_poll(0, 0x01))
        rig.host.port.send(bytes((0x80,)))
        assert silent(rig)
        rig.settle()
        assert not rig.ctl.floor_gate.closed_seats


def test_an_attendant_cannot_take_a_slot_system_transaction_id(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        ok, why = rig.request("credits-in", seat=1, cents=100, id="sas:46001:5431")
        assert not ok and "slot system" in why
        # red team r46 F3: the guard was case-sensitive; 'SAS:...' was taken and journaled
        # beside the host's 'sas:...' of the same seat and amount
        for tid in ("SAS:46001:5959", "Sas:46001:5959", "AUTO-PLAY:1"):
            ok, why = rig.request("credits-in", seat=1, cents=100, id=tid)
            assert not ok, tid


def test_the_host_command_refuses_what_is_not_a_serial_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    f = tmp_path / "file"
    f.write_text("x")
    out = subprocess.run([sys.executable, "-m", "firmware", "sas", "host", str(f)],
                         capture_output=True, text=True)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr


def _aft(rig: Rig, cents: int, txid: bytes, regkey: bytes = bytes(20)) -> int:
    from drivers.sas.aft import parse_result

    res = parse_result(rig.host.long(1, 0x72, request_data(
        C.AFT_IN_HOUSE_TO_MACHINE, cents, 46001, txid, regkey=regkey), variable=True))
    for _ in range(100):
        if res["status"] != C.AFT_PENDING:
            break
        time.sleep(0.02)
        res = parse_result(rig.host.long(1, 0x72, b"\xff\x00", variable=True))
    return int(str(res["status"]))


def test_finding_f2_a_transfer_never_takes_current_credits_past_eight_digits(
        tmp_path: Path) -> None:
    """Red team F2: AFT took a seat to 100,002,000 cents and 1A's 4-byte BCD rolled over
    to 1,000; now the machine refuses (84) a transfer past 99,999,999."""
    with sas_table(tmp_path) as rig:
        for _ in range(10):
            assert rig.request("credits-in", seat=1, cents=9_999_900)[0]
        rig.settle()
        assert _aft(rig, 2000, b"OV1") == C.AFT_OVER_LIMIT
        assert _aft(rig, 999, b"OV2") == C.AFT_FULL_SUCCESS  # exactly 99,999,999
        rig.settle()
        assert rig.host.long(1, 0x1A, crc=False, answer=8) == bcd(99_999_999, 4)


def test_finding_f3_a_repeated_seed_is_computed_over_the_files_as_they_are_now(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team F3: a seed asked before was answered from a cache, hiding a file changed
    since; a result is now answered only moments after its computation."""
    from firmware.table.sas.signature import Signer, rom_signature

    tree = tmp_path / "release"
    tree.mkdir()
    (tree / "MANIFEST.json").write_text("{}")
    (tree / "a.py").write_text("a = 1\n")
    monkeypatch.setattr(Signer, "FRESH_S", 0.3)
    monkeypatch.setattr(Signer, "MIN_INTERVAL_S", 0.0)

    def sig(rig: Rig) -> int:
        rig.host.timeout = 0.3
        for _ in range(30):
            try:
                return int.from_bytes(rig.host.long(1, 0x21, b"\x00\x00", answer=6), "little")
            except Exception:
                continue
        raise AssertionError("no signature")

    with sas_table(tmp_path, signer=Signer(tree, wait_s=1.0)) as rig:
        first = sig(rig)
        assert first == rom_signature(tree, 0)
        (tree / "a.py").write_text("a = 2  # tampered\n")
        time.sleep(0.5)
        again = sig(rig)
        assert again == rom_signature(tree, 0) != first


def test_finding_f4_while_registered_a_wrong_registration_key_is_refused(
        tmp_path: Path) -> None:
    """Red team F4: after registration (73) with a key, a transfer with another key was
    applied; now it is refused with 89 and moves nothing."""
    import struct

    key = bytes(range(1, 21))
    with sas_table(tmp_path) as rig:
        body = bytes((0x01,)) + struct.pack("<I", 46001) + key + struct.pack("<I", 1234)
        reg = rig.host.long(1, 0x73, body, variable=True)
        assert reg[0] == 0x01  # registered
        assert _aft(rig, 111, b"REG1", regkey=bytes(range(2, 22))) == C.AFT_REGKEY_MISMATCH
        assert _aft(rig, 111, b"REG2") == C.AFT_REGKEY_MISMATCH  # a zero key too
        assert _aft(rig, 111, b"REG3", regkey=key) == C.AFT_FULL_SUCCESS
        rig.settle()
        assert rig.meters()["credits_in"] == 111
        short = rig.host.long(1, 0x73, b"\x00", variable=True)  # the short initialize
        assert short[0] == 0x00


def test_finding_f5_bytes_behind_a_rejected_message_are_not_polls(tmp_path: Path) -> None:
    """Red team F5: on the pty a byte >= 80 behind a message with a bad CRC was taken as a
    general poll of another machine (its exception answered and taken)."""
    with sas_table(tmp_path) as rig:
        rig.host.port.send(bytes((0x01, 0x74, 0, 0, 0, 0, 0, 0, 0x82)))
        assert silent(rig)
        rig.host.port.send(bytes.fromhex("012111af2e55859fa9c381d6972698c913bc352168e6"))
        assert silent(rig)
        time.sleep(0.05)
        rig.settle()
        assert not events(rig, EventCode.SAS_EXCEPTION_TAKEN)
        assert rig.host.general_poll(2) == C.AC_POWER_APPLIED  # still there for its host


def test_finding_f6_lock_status_says_what_can_move_now() -> None:
    """Red team F6: 74's cashable amount was the credits meter (stakes in play included),
    so a transfer out of it was refused; it is now what the seat holds now."""
    from drivers.sas.aft import parse_result
    from drivers.sas.framing import Poll, from_bcd
    from drivers.sas.machine import Machine, SeatSnapshot

    class NeverApplied:
        def applied(self, address: int, req: object) -> None:
            return None

    snap = SeatSnapshot(1, 46001, meters={C.CURRENT_CREDITS: 5000}, live_credits=4500)
    m = Machine(1, snap, NeverApplied())  # type: ignore[arg-type]
    status = m.respond(Poll(1, 0x74, bytes((0xFF, 0, 0, 0))))
    assert status is not None and from_bcd(status[12:17]) == 4500
    out = m.respond(Poll(1, 0x72, request_data(C.AFT_IN_HOUSE_TO_HOST, 5000, 46001, b"O1")))
    assert out is not None and parse_result(out[3:-2])["status"] == C.AFT_UNABLE


def test_finding_f7_a_retry_of_an_applied_transfer_gets_its_first_result_always(
        tmp_path: Path) -> None:
    """Red team F7: a retry of an applied transfer was answered 87 once the seat could not
    take a new one (disabled, full), and interrogation then said 87 for it."""
    from drivers.sas.aft import parse_result

    with sas_table(tmp_path) as rig:
        assert _aft(rig, 300, b"DUP1") == C.AFT_FULL_SUCCESS
        assert rig.host.ack_only(1, 0x01)  # the seat closes
        rig.settle()
        assert _aft(rig, 300, b"DUP1") == C.AFT_FULL_SUCCESS  # the first result
        res = parse_result(rig.host.long(1, 0x72, b"\xff\x00", variable=True))
        assert res["status"] == C.AFT_FULL_SUCCESS and res["txid"] == "DUP1"
        assert _aft(rig, 999, b"DUP1") == C.AFT_TXID_NOT_UNIQUE
        res = parse_result(rig.host.long(1, 0x72, b"\xff\x00", variable=True))
        assert res["status"] == C.AFT_FULL_SUCCESS  # not overwritten by the 81
        rig.settle()
        assert rig.meters()["credits_in"] == 300


def test_finding_f8_refused_transfers_are_journaled_at_most_once_a_second(
        tmp_path: Path) -> None:
    """Red team F8: transfers the controller refused were each journaled (1103)."""
    from firmware.table.sas.commands import run_sas

    with sas_table(tmp_path) as rig:
        desk = rig.ctl.requests
        for i in range(50):  # the controller refuses: the seat holds nothing
            ok, _ = run_sas(desk, {"op": "transfer", "address": 1, "seat": 1,
                                   "kind": "credits-out", "cents": 100, "id": f"sas:1:{i:04x}",
                                   "txid": f"{i:04x}", "asset": 46001})
            assert not ok
        assert len(events(rig, EventCode.SAS_TRANSFER_REFUSED)) == 1


def test_finding_f9_same_txid_other_amount_while_pending_is_not_unique() -> None:
    """Red team F9: a second request with the pending one's id and another amount was
    answered 40 (pending) instead of 81."""
    from drivers.sas.aft import parse_result
    from drivers.sas.framing import Poll
    from drivers.sas.machine import Machine, SeatSnapshot

    class Requests:
        def transfer(self, address: int, req: object) -> None:
            pass

        def transfer_done(self, address: int, req: object) -> None:
            return None  # still pending

        def applied(self, address: int, req: object) -> None:
            return None

    snap = SeatSnapshot(1, 46001, meters={C.CURRENT_CREDITS: 0}, live_credits=0,
                        max_credits=10**8)
    m = Machine(1, snap, Requests())  # type: ignore[arg-type]

    def send(cents: int) -> int:
        out = m.respond(Poll(1, 0x72, request_data(C.AFT_IN_HOUSE_TO_MACHINE, cents, 46001,
                                                   b"P1")))
        assert out is not None
        return int(str(parse_result(out[3:-2])["status"]))

    assert send(100) == C.AFT_PENDING
    assert send(100) == C.AFT_PENDING
    assert send(200) == C.AFT_TXID_NOT_UNIQUE
