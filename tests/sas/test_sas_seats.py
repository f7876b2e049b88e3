"""Each seat a SAS gaming machine, polled over a real pseudo-terminal: meters equal to
``etg meters``, the exception queue in order and across a restart, shutdown and startup
through the floor's path, the ROM signature, AFT exactly once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from sas_rig import Rig, sas_table, startup, wait_until

from drivers.sas import codes as C
from drivers.sas.aft import parse_result, request_data
from drivers.sas.framing import bcd, from_bcd, long_poll
from drivers.sas.host import NoAnswer
from drivers.sas.settings import SasSettings
from firmware.engine.inputs import Wager
from firmware.journal import EventCode
from firmware.table.sas.signature import Signer, rom_signature

ASSET1 = 46001  # asset_base 46000 + seat 1


def drain_exceptions(rig: Rig, address: int) -> list[int]:
    """General polls, each followed by a long poll (as hosts do: it acknowledges the
    answer), until the machine has nothing left."""
    out = []
    for _ in range(100):
        code = rig.host.general_poll(address)
        assert code is not None
        rig.host.long(address, 0x1A, crc=False, answer=8)
        if code == C.NO_EXCEPTION:
            return out
        out.append(code)
    raise AssertionError("the queue never emptied")


def seat_meters(rig: Rig, seat: int) -> dict[str, int]:
    m = rig.meters()
    return next((s for s in m["seats"] if s["seat"] == seat), {})


def test_meters_equal_etg_meters_through_every_meter_poll(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        assert rig.request("credits-in", seat=1, cents=12_345)[0]
        assert rig.request("credits-out", seat=1, cents=345)[0]
        rig.settle()
        m = seat_meters(rig, 1)
        h = rig.host
        assert from_bcd(h.long(1, 0x1A, crc=False, answer=8)) == m["credits"] == 12_000
        assert from_bcd(h.long(1, 0x10, crc=False, answer=8)) == m["credits_out"]
        assert from_bcd(h.long(1, 0x11, crc=False, answer=8)) == m["wagered"]
        assert from_bcd(h.long(1, 0x15, crc=False, answer=8)) == m["games_played"]
        sets = h.long(1, 0x0F, crc=False, answer=28)
        assert [from_bcd(sets[i:i + 4]) for i in range(0, 24, 4)] == [
            m["credits_out"], m["wagered"], m["paid"], m["credits_in"], 0, m["games_played"]]
        sel = h.long(1, 0x2F, bytes((0x00, 0x00, 0x0C, 0x17, 0x18, 0x99)), variable=True)
        assert sel[:2] == b"\0\0"
        assert sel[2:] == (bytes((0x0C,)) + bcd(12_000, 4) + bytes((0x17,)) + bcd(12_345, 4)
                           + bytes((0x18,)) + bcd(345, 4))  # 0x99: not kept, left out
        ext = h.long(1, 0x6F, bytes((0x00, 0x00, 0x0C, 0x00)), variable=True)
        assert ext == b"\0\0" + bytes((0x0C, 0x00, 5)) + bcd(12_000, 5)
        # the table's own machine (address 9) reads the table's totals
        assert from_bcd(h.long(9, 0x1A, crc=False, answer=8)) == rig.meters()["credits"]


def test_exceptions_in_order_and_not_offered_again_after_a_restart(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        rig.ctl.put_event = None  # type: ignore[attr-defined]
        assert drain_exceptions(rig, 1) == [C.AC_POWER_APPLIED]
        rig.ctl.event(EventCode.DOOR_OPEN)  # the controller's thread is idle: safe here
        rig.request("status")  # a refresh: the new snapshot
        rig.ctl.event(EventCode.TILT, None, cause="x", code="y")
        rig.request("status")
        assert rig.host.general_poll(1) == C.SLOT_DOOR_OPEN
        rig.host.long(1, 0x1A, crc=False, answer=8)  # the next poll: acknowledged
        rig.settle()
        taken = [r.body for r in rig.ctl.journal.records(kinds=["event"])
                 if r.code == int(EventCode.SAS_EXCEPTION_TAKEN)]
        assert [t["address"] for t in taken] == [1, 1]
    # a restart: the power-up of this start, then the tilt still untaken; never the door
    with sas_table(tmp_path) as rig:
        assert drain_exceptions(rig, 1) == [C.GENERAL_TILT, C.AC_POWER_APPLIED]
        assert drain_exceptions(rig, 2) == [C.AC_POWER_APPLIED, C.SLOT_DOOR_OPEN,
                                            C.GENERAL_TILT, C.AC_POWER_APPLIED]


def test_shutdown_and_startup_close_and_open_the_seat(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        assert rig.request("credits-in", seat=1, cents=1000)[0]
        assert rig.request("credits-in", seat=2, cents=1000)[0]
        assert rig.host.ack_only(1, 0x01)
        rig.settle()
        assert 1 in rig.ctl.floor_gate.closed_seats
        assert not rig.ctl.take(Wager(1, 100), "panel")
        assert rig.ctl.floor_gate.refuses(Wager(2, 100), rig.ctl.game) is None
        cmds = [r.body for r in rig.ctl.journal.records(kinds=["event"])
                if r.code == int(EventCode.FLOOR_COMMAND)]
        assert cmds[-1]["seat"] == 1 and cmds[-1]["action"] == "disable"
        assert cmds[-1]["by"].startswith("sas host")
        startup(rig, 1)
        assert 1 not in rig.ctl.floor_gate.closed_seats
        # the table's own address closes the table
        assert rig.host.ack_only(9, 0x01)
        rig.settle()
        assert rig.ctl.floor_gate.closed


def test_seat_disable_survives_a_restart(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        assert rig.host.ack_only(2, 0x01)
        rig.settle()
    with sas_table(tmp_path) as rig:
        assert rig.ctl.floor_gate.closed_seats == {2}


def test_rom_signature_is_the_seeded_crc_over_the_release(tmp_path: Path) -> None:
    tree = tmp_path / "release"
    (tree / "pkg").mkdir(parents=True)
    (tree / "MANIFEST.json").write_text("{}")
    (tree / "pkg" / "a.py").write_bytes(b"print(1)\n")
    (tree / "pkg" / "b.py").write_bytes(b"x = 2\n")
    with sas_table(tmp_path, signer=Signer(tree, wait_s=2.0)) as rig:
        want = rom_signature(tree, 0x1234)
        assert signature(rig, 0x1234) == want
        assert want != rom_signature(tree, 0x4321)
        (tree / "pkg" / "b.py").write_bytes(b"x = 3\n")  # a changed file: another value
        assert signature(rig, 0x0001) == rom_signature(tree, 1) != want


def signature(rig: Rig, seed: int) -> int:
    """Poll 21 as a host does: again until the machine has the answer."""
    rig.host.timeout = 0.3
    for _ in range(20):
        try:
            got = rig.host.long(1, 0x21, seed.to_bytes(2, "little"), answer=6)
            return int.from_bytes(got, "little")
        except NoAnswer:
            continue
    raise AssertionError("no ROM signature")


def test_a_flood_of_fresh_seeds_computes_at_most_one_a_second(tmp_path: Path) -> None:
    calls: list[int] = []
    signer = Signer(tmp_path, wait_s=0.0)
    signer._run = lambda seed: calls.append(seed)  # type: ignore[method-assign]
    for seed in range(200):
        signer.signature(seed)
    assert len(calls) == 1


def aft(rig: Rig, address: int, kind: int, cents: int, txid: bytes,
        asset: int = ASSET1) -> dict[str, object]:
    return parse_result(rig.host.long(address, 0x72, request_data(kind, cents, asset, txid),
                                      variable=True))


def interrogate(rig: Rig, address: int) -> dict[str, object]:
    return parse_result(rig.host.long(address, 0x72, bytes((0xFF, 0x00)), variable=True))


def final(rig: Rig, address: int) -> dict[str, object]:
    """Interrogated until final; a poll left unanswered (the transfer's commit pending
    at the table, docs/sas.md) is polled again, as a host does."""
    def one() -> dict[str, object] | None:
        try:
            r = interrogate(rig, address)
        except NoAnswer:
            return None
        return r if r["status"] != C.AFT_PENDING else None

    return wait_until("a final AFT status", one)


def test_aft_in_and_out_exactly_once(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        first = aft(rig, 1, C.AFT_IN_HOUSE_TO_MACHINE, 5000, b"TX0001")
        assert first["status"] in (C.AFT_PENDING, C.AFT_FULL_SUCCESS)
        done = final(rig, 1)
        assert done["status"] == C.AFT_FULL_SUCCESS and done["cents"] == 5000
        assert done["txid"] == "TX0001" and done["asset"] == ASSET1
        again = aft(rig, 1, C.AFT_IN_HOUSE_TO_MACHINE, 5000, b"TX0001")  # a retry
        assert again["status"] == C.AFT_FULL_SUCCESS
        rig.settle()
        assert seat_meters(rig, 1)["credits_in"] == 5000
        out = aft(rig, 1, C.AFT_IN_HOUSE_TO_HOST, 1500, b"TX0002")
        assert out["status"] in (C.AFT_PENDING, C.AFT_FULL_SUCCESS)
        assert final(rig, 1)["status"] == C.AFT_FULL_SUCCESS
        rig.settle()
        assert seat_meters(rig, 1)["credits"] == 3500
        ev = [r.body for r in rig.ctl.journal.records(kinds=["event"])
              if r.code == int(EventCode.CREDITS_IN)]
        assert ev[-1]["asset"] == ASSET1 and ev[-1]["sas_txid"] == b"TX0001".hex()
        assert C.AFT_TRANSFER_COMPLETE in drain_exceptions(rig, 1)
    # after a restart the same transaction id is still applied once
    with sas_table(tmp_path) as rig:
        assert interrogate(rig, 1)["txid"] == "TX0002"
        again = aft(rig, 1, C.AFT_IN_HOUSE_TO_MACHINE, 5000, b"TX0001")
        assert again["status"] == C.AFT_FULL_SUCCESS
        rig.settle()
        assert seat_meters(rig, 1)["credits_in"] == 5000


def test_aft_refusals(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        assert aft(rig, 1, C.AFT_IN_HOUSE_TO_MACHINE, 100, b"A1",
                   asset=12)["status"] == C.AFT_ASSET_MISMATCH
        assert aft(rig, 1, C.AFT_IN_HOUSE_TO_HOST, 100, b"A2")["status"] in (
            C.AFT_UNABLE, C.AFT_PENDING)
        assert final(rig, 1)["status"] == C.AFT_UNABLE  # no credits to take
        assert rig.host.ack_only(1, 0x01)
        rig.settle()
        assert aft(rig, 1, C.AFT_IN_HOUSE_TO_MACHINE, 100, b"A3")["status"] == C.AFT_UNABLE
        assert aft(rig, 1, 0x01, 100, b"A4")["status"] == C.AFT_INVALID_FUNCTION
        startup(rig, 1)
        assert aft(rig, 1, C.AFT_IN_HOUSE_TO_MACHINE, 10**9, b"A5")["status"] == C.AFT_OVER_LIMIT
        data = bytearray(request_data(C.AFT_IN_HOUSE_TO_MACHINE, 100, ASSET1, b"A6"))
        data[0] = 0x80  # a cancel request: not supported
        res = parse_result(rig.host.long(1, 0x72, bytes(data), variable=True))
        assert res["status"] == C.AFT_UNSUPPORTED_CODE
        rig.settle()
        assert rig.meters()["credits_in"] == 0
        # an id used once may not move another amount
        assert aft(rig, 1, C.AFT_IN_HOUSE_TO_MACHINE, 300, b"ONCE")["status"] in (
            C.AFT_PENDING, C.AFT_FULL_SUCCESS)
        assert final(rig, 1)["status"] == C.AFT_FULL_SUCCESS
        assert aft(rig, 1, C.AFT_IN_HOUSE_TO_MACHINE, 900, b"ONCE")["status"] == (
            C.AFT_TXID_NOT_UNIQUE)
        rig.settle()
        assert rig.meters()["credits_in"] == 300


def test_production_refuses_a_pty_port() -> None:
    from etgcore.errors import ConfigError
    from firmware.config import load_config

    with pytest.raises(ConfigError, match="bench power"):
        load_config(None, ["table.mode=production", "shoe.port=/dev/ttyUSB0",
                           "panel.backend=gpio", "sas.port=pty"])


def test_unknown_poll_and_bad_crc_get_nothing(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        rig.host.timeout = 0.2
        with pytest.raises(NoAnswer):
            rig.host.long(1, 0x2F, bytes((0x00, 0x07, 0x0C)), variable=True)  # game 7
        rig.host.port.send(bytes((1, 0x01, 0x00, 0x00)))  # shutdown with a wrong CRC
        assert rig.host.port.read(1, __import__("time").monotonic() + 0.2) == b""
        rig.settle()
        assert not rig.ctl.floor_gate.closed_seats
        rig.settle()  # the link process's counters passed on
        assert rig.svc.link.splitter.counts["bad_crc"] == 1


def test_settings_refuse_shared_addresses() -> None:
    from etgcore.errors import ConfigError
    from firmware.config import load_config

    with pytest.raises(ConfigError, match="share"):
        load_config(None, ["sas.port=pty", "sas.addresses=[1,1,2,3,4,5,6]"])
    s = SasSettings()
    assert s.port == "off"


def test_a_disabled_seat_shows_no_bet_lamp_and_the_view_says_so(tmp_path: Path) -> None:
    from table_helpers import FakePanel, FakeShoe, card, press

    from firmware.engine import load_rules
    from firmware.journal import Journal
    from firmware.table.controller import Controller
    from firmware.table.recovery import open_table

    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, load_rules("blackjack", {}), 2, True)
    views: list[dict[str, object]] = []
    panel = FakePanel()
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=panel,
                     publish=views.append)  # type: ignore[arg-type]
    for seat in (1, 2):
        assert ctl.request("credits-in", {"seat": seat, "cents": 5000})[0]
    for h in press(None, "SHUFFLE"):
        ctl.handle(h)
    ctl.handle(card("2C"))  # the burn card: betting
    ctl.refresh()
    lit_before = {k: set(v) for k, v in panel.lit.items()}
    assert lit_before.get(1) and lit_before.get(2)
    ctl.floor_gate.closed_seats.add(1)
    ctl.refresh()
    assert not panel.lit.get(1) and panel.lit.get(2) == lit_before[2]
    assert views[-1]["controller"]["closed_seats"] == [1]  # type: ignore[index]
    journal.close()


def test_a_sas_startup_does_not_overrule_the_floors_disable(tmp_path: Path) -> None:
    with sas_table(tmp_path) as rig:
        ok, _ = rig.request("floor", command={"action": "disable", "by": "pit boss"})
        assert ok and rig.ctl.floor_gate.closed
        assert rig.host.ack_only(9, 0x02)  # the table's address: startup
        rig.settle()
        assert rig.ctl.floor_gate.closed
        refused = [r.body for r in rig.ctl.journal.records(kinds=["event"])
                   if r.code == int(EventCode.FLOOR_COMMAND_REFUSED)]
        assert refused and "floor enables it" in str(refused[-1]["reason"])
        for _ in range(20):  # a host repeating its startup: refused, journaled once
            assert rig.host.ack_only(9, 0x02)
        rig.settle()
        assert len([r for r in rig.ctl.journal.records(kinds=["event"])
                    if r.code == int(EventCode.FLOOR_COMMAND_REFUSED)]) == 1
        # what the SAS host closed it may open
        assert rig.request("floor", command={"action": "enable", "by": "pit boss"})[0]
        assert rig.host.ack_only(9, 0x01)
        rig.settle()
        assert rig.ctl.floor_gate.closed
        startup(rig, 9)
        assert not rig.ctl.floor_gate.closed


def test_a_new_host_never_reads_what_an_earlier_one_left(tmp_path: Path) -> None:
    from drivers.sas.host import Host, HostPort

    with sas_table(tmp_path) as rig:
        rig.host.port.send(long_poll(1, 0x1A, crc=False))  # answered, never read
        time.sleep(1.3)
        rig.host.port.close()
        fresh = HostPort.open(rig.port.path)
        try:
            fresh.send(bytes((0x81,)))  # no drain: the first byte must be the answer
            got = fresh.read(1, time.monotonic() + 2)
            assert got == bytes((C.AC_POWER_APPLIED,))
        finally:
            fresh.close()
            rig.host = Host(HostPort.open(rig.port.path))  # for the rig's close


def test_a_start_reads_a_window_and_says_when_older_exceptions_were_lost(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware.journal import Journal
    from firmware.table.sas import board as B

    j = Journal(tmp_path / "j.sqlite")
    for _ in range(30):
        j.append_one("event", {}, code=int(EventCode.DOOR_OPEN))
    j.append_one("event", {"address": 1, "seq": 10}, code=int(EventCode.SAS_EXCEPTION_TAKEN))
    monkeypatch.setattr(B, "WINDOW", 15)
    board = B.SasBoard(j, {1: 1, 2: 2}, 46000, 0)
    # 30 doors (records 1-30), the take (31); the window is records 17-31: the take of
    # machine 1 (up to record 10) is outside it, so are 16 untaken doors: reported lost
    one = [code for _s, code in board.queues[1].items]
    assert one[0] == C.BUFFER_OVERFLOW and one.count(C.SLOT_DOOR_OPEN) == 14
    assert board.door_opens == 30  # the counts are the whole journal's
    monkeypatch.setattr(B, "WINDOW", 1000)
    board = B.SasBoard(j, {1: 1, 2: 2}, 46000, 0)
    assert [c for _s, c in board.queues[1].items] == [C.SLOT_DOOR_OPEN] * 20
    assert [c for _s, c in board.queues[2].items] == [C.SLOT_DOOR_OPEN] * 30
    j.close()


def test_one_line_per_seat(tmp_path: Path) -> None:
    from drivers.sas.host import Host, HostPort

    settings = SasSettings(port="pty", seat_ports=("pty", ""), addresses=(1, 2))
    with sas_table(tmp_path, settings, own_ports=True) as rig:
        paths = {frozenset(link.addresses): link.port.path  # type: ignore[attr-defined]
                 for link in rig.svc.links}
        assert set(paths) == {frozenset({1}), frozenset({2})}
        one = Host(HostPort.open(paths[frozenset({1})]), timeout=0.3)
        two = Host(HostPort.open(paths[frozenset({2})]), timeout=0.3)
        try:
            assert one.general_poll(1) == C.AC_POWER_APPLIED
            assert one.general_poll(2) is None  # seat 2 is not on this line
            assert two.general_poll(2) == C.AC_POWER_APPLIED
        finally:
            one.port.close()
            two.port.close()


def test_seat_ports_settings_are_checked() -> None:
    from etgcore.errors import ConfigError
    from firmware.config import load_config

    with pytest.raises(ConfigError, match=r"sas\.port"):
        load_config(None, ["sas.seat_ports=['pty']"])  # seat 2 would have no line
    with pytest.raises(ConfigError, match="bench power"):
        load_config(None, ["table.mode=production", "shoe.port=/dev/ttyUSB0",
                           "panel.backend=gpio", "sas.port=/dev/ttyAMA1",
                           "sas.seat_ports=['pty']"])
    cfg = load_config(None, ["sas.seat_ports=['pty', 'pty', 'pty', 'pty', 'pty', 'pty', "
                             "'pty']", "table.seats=7"])
    assert cfg.sas.port == "off"


def test_a_general_poll_repeated_at_once_gets_the_same_exception_again() -> None:
    """Implied NACK: the host did not get the answer and asks again at once (once);
    implied ACK: its next poll (any other, or the next cycle's general poll)."""
    from drivers.sas.framing import Poll
    from drivers.sas.machine import Machine, SeatSnapshot

    taken: list[int] = []

    class Requests:
        def taken(self, address: int, seq: int) -> None:
            taken.append(seq)

    now = [0.0]
    snap = SeatSnapshot(1, ASSET1, exceptions=((5, C.AC_POWER_APPLIED),
                                               (9, C.SLOT_DOOR_OPEN)))
    m = Machine(1, snap, Requests())  # type: ignore[arg-type]
    m.clock = lambda: now[0]
    gp = Poll(1, None)

    def poll(at: float) -> int:
        now[0] = at
        got = m.respond(gp)
        assert got is not None
        return got[0]

    assert poll(0.0) == C.AC_POWER_APPLIED
    assert poll(0.02) == C.AC_POWER_APPLIED and taken == []  # a retry: the same again
    assert poll(0.03) == C.SLOT_DOOR_OPEN and taken == [5]  # once only, then acknowledged
    assert poll(0.25) == C.NO_EXCEPTION and taken == [5, 9]  # the next cycle's poll
    m.snapshot = SeatSnapshot(1, ASSET1, exceptions=((12, C.GENERAL_TILT),))
    assert poll(1.0) == C.GENERAL_TILT
    m.respond(Poll(1, 0x1A))  # a long poll acknowledges at once
    assert taken == [5, 9, 12]


def _slow_signer(tree: Path, delay: float, monkeypatch: pytest.MonkeyPatch) -> Signer:
    """A signer whose computation takes ``delay`` (a large release on a slow CPU)."""
    import time as _time

    import firmware.table.sas.signature as sigmod

    real = sigmod.rom_signature

    def slow(root: Path, seed: int) -> int:
        _time.sleep(delay)
        return real(root, seed)

    monkeypatch.setattr(sigmod, "rom_signature", slow)
    return Signer(tree, wait_s=0.0)


def test_checked_against_saspy_a_host_that_waits_for_the_signature_gets_it_late(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found with an independent host (saspy): it sends 21 once and waits up to 3 s for
    the answer, and asks again only a second later, when the 3 s freshness had expired,
    so it never got a signature. Now the answer goes out as soon as it is computed while
    the line stays quiet after the poll."""
    import time as _time

    from drivers.sas.framing import long_poll

    tree = tmp_path / "release"
    (tree / "pkg").mkdir(parents=True)
    (tree / "MANIFEST.json").write_text("{}")
    (tree / "pkg" / "a.py").write_bytes(b"print(1)\n")
    with sas_table(tmp_path, signer=_slow_signer(tree, 0.3, monkeypatch)) as rig:
        rig.host.port.drain()
        rig.host.port.send(long_poll(1, 0x21, (0x1234).to_bytes(2, "little")))
        got = rig.host.port.read(6, _time.monotonic() + 1.5)  # asked once, waited
        assert got[:2] == b"\x01\x21" and len(got) == 6
        assert int.from_bytes(got[2:4], "little") == rom_signature(tree, 0x1234)
        rig.settle()  # the link process's counters passed on
        assert rig.svc.link.counts["answered_late"] == 1


def test_a_late_signature_never_lands_in_the_answer_to_another_poll(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host moved on (another poll before the signature was ready): no late answer;
    its next 21 gets the value."""
    import time as _time

    from drivers.sas.framing import long_poll

    tree = tmp_path / "release"
    (tree / "pkg").mkdir(parents=True)
    (tree / "MANIFEST.json").write_text("{}")
    (tree / "pkg" / "a.py").write_bytes(b"x = 1\n")
    with sas_table(tmp_path, signer=_slow_signer(tree, 0.3, monkeypatch)) as rig:
        rig.host.port.drain()
        rig.host.port.send(long_poll(1, 0x21, (0x0042).to_bytes(2, "little")))
        assert rig.host.port.read(6, _time.monotonic() + 0.05) == b""
        for _ in range(8):  # the host polls on meanwhile: only its answers come back
            assert len(rig.host.long(1, 0x1A, crc=False, answer=8)) == 4
            _time.sleep(0.05)
        _time.sleep(0.3)
        assert rig.host.port.drain() == b""
        rig.settle()  # the link process's counters passed on
        assert rig.svc.link.counts["answered_late"] == 0
        assert signature(rig, 0x0042) == rom_signature(tree, 0x0042)
