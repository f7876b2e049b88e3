"""Issue 46, "one kill -9 window may repeat an exception once": the host's
acknowledgement of an exception reached the journal only through the controller's inbox,
so a kill -9 between the acknowledging poll and that journal write offered the exception
again after the restart (a host that had it counted it twice). The link now marks the
take (a keyed slot beside the journal) before it answers the acknowledging poll, and the
next start applies and journals a mark the journal lacks. A mark that is torn, forged or
names no untaken exception is ignored: nothing is ever lost, at most offered again."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from drivers.sas import codes as C
from drivers.sas.host import Host, HostPort
from drivers.sas.ports import PtyPort
from drivers.sas.settings import SasSettings
from firmware.engine import load_rules
from firmware.journal import EventCode, Journal
from firmware.table.controller import Controller
from firmware.table.floor_gate import FloorGate
from firmware.table.happenings import StopHappening
from firmware.table.recovery import open_table
from firmware.table.sas.service import start_sas
from firmware.table.sas.takes import SLOT, TakeMarks, marks_path


@contextmanager
def table(path: Path, *, run: bool) -> Iterator[tuple[Host, Journal]]:
    """A table on ``path`` with its SAS link; ``run=False``: its controller never runs
    (what the inbox holds never reaches the journal: a kill -9 before it could)."""
    journal = Journal(path)
    journal.append_one("event", {"mode": "bench"}, code=int(EventCode.POWER_UP))
    ctl = Controller(open_table(journal, load_rules("blackjack", {}), 2, True).game, journal)
    ctl.floor_gate = FloorGate.from_journal(journal)
    port = PtyPort()
    svc = start_sas(SasSettings(addresses=(1, 2)), ctl, port=port)
    worker = threading.Thread(target=ctl.run, daemon=True)
    if run:
        worker.start()
    host = Host(HostPort.open(port.path), timeout=2.0)
    try:
        yield host, journal
    finally:
        if run:
            for link in svc.links:  # a link process's last requests into the inbox first
                getattr(link, "sync", lambda: None)()
            ctl.put(StopHappening("test over"))
            worker.join(10)
        svc.stop()
        host.port.close()
        journal.close()


def takes(path: Path) -> list[dict[str, object]]:
    j = Journal(path, readonly=True)
    try:
        return [dict(r.body) for r in j.records(kinds=["event"])
                if r.code == int(EventCode.SAS_EXCEPTION_TAKEN)]
    finally:
        j.close()


def take_power_up_then_die(path: Path) -> None:
    with table(path, run=False) as (host, _j):
        assert host.general_poll(1) == C.AC_POWER_APPLIED
        host.long(1, 0x1A, crc=False, answer=8)  # the implied acknowledgement
    assert takes(path) == []  # the take never reached the journal


def test_finding_kill_9_window_repeated_an_exception_the_host_had_taken(
        tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    take_power_up_then_die(path)
    with table(path, run=True) as (host, _j):
        # the second start's power-up, never the first one again
        assert host.general_poll(1) == C.AC_POWER_APPLIED
        host.long(1, 0x1A, crc=False, answer=8)
        assert host.general_poll(1) == C.NO_EXCEPTION
        host.long(1, 0x1A, crc=False, answer=8)
        # address 2 never acknowledged anything: both power-ups still offered there
        assert host.general_poll(2) == C.AC_POWER_APPLIED
        host.long(2, 0x1A, crc=False, answer=8)
        assert host.general_poll(2) == C.AC_POWER_APPLIED
        host.long(2, 0x1A, crc=False, answer=8)
    got = takes(path)
    assert got[0] == {"address": 1, "seq": 1, "recovered": True}  # journaled at the start
    assert [t["address"] for t in got[1:]] == [1, 2, 2] and not any(
        t.get("recovered") for t in got[1:])


def test_a_torn_or_forged_mark_is_ignored_and_nothing_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    take_power_up_then_die(path)
    marks = marks_path(path)
    raw = bytearray(marks.read_bytes())
    raw[SLOT + 20] ^= 0xFF  # address 1's MAC broken (a torn write, or a forger)
    marks.write_bytes(bytes(raw))
    with table(path, run=True) as (host, _j):
        assert host.general_poll(1) == C.AC_POWER_APPLIED  # offered again: never lost
        host.long(1, 0x1A, crc=False, answer=8)
        assert host.general_poll(1) == C.AC_POWER_APPLIED
        host.long(1, 0x1A, crc=False, answer=8)
    assert not any(t.get("recovered") for t in takes(path))


def test_a_mark_naming_no_untaken_exception_is_ignored(tmp_path: Path) -> None:
    """A mark keyed right but naming a record the journal does not have (or one that is
    no untaken exception of the machine) skips nothing."""
    path = tmp_path / "j.sqlite"
    take_power_up_then_die(path)
    j = Journal(path, readonly=True)
    key, first = j.key, next(iter(j.records(upto_seq=1)))
    j.close()
    assert key is not None
    m = TakeMarks(marks_path(path), key, first.hash.encode())
    m.mark(1, 10**6)  # far past the journal's end: no untaken exception of address 1
    m.close()
    with table(path, run=True) as (host, _j):
        assert host.general_poll(1) == C.AC_POWER_APPLIED
        host.long(1, 0x1A, crc=False, answer=8)
        assert host.general_poll(1) == C.AC_POWER_APPLIED
        host.long(1, 0x1A, crc=False, answer=8)
        assert host.general_poll(1) == C.NO_EXCEPTION


def test_marks_of_another_journal_at_the_same_path_do_not_count(tmp_path: Path) -> None:
    """A journal archived and begun anew at the same path (the same key beside it): the
    old journal's marks name record numbers of the old one and must skip nothing."""
    path = tmp_path / "j.sqlite"
    take_power_up_then_die(path)
    marks = marks_path(path).read_bytes()
    for f in tmp_path.iterdir():  # a new journal, the key kept
        if f.name != "j.sqlite.key":
            f.unlink()
    take_power_up_then_die(path)  # the new journal's own first power-up, its take lost
    marks_path(path).write_bytes(marks)  # the old journal's marks put back
    with table(path, run=True) as (host, _j):
        assert host.general_poll(1) == C.AC_POWER_APPLIED  # the new journal's first: kept
        host.long(1, 0x1A, crc=False, answer=8)
        assert host.general_poll(1) == C.AC_POWER_APPLIED
    assert not any(t.get("recovered") for t in takes(path))


def test_marks_are_never_written_through_a_link(tmp_path: Path) -> None:
    """A symbolic link (or a hard link) planted where the marks go: refused, nothing
    written into its target; the link does not start without its marks (fail closed:
    tests/sas/test_sas_marks_file.py has every shape)."""
    import os

    import pytest

    from firmware.table.sas.takes import MarksRefused, open_marks

    path = tmp_path / "j.sqlite"
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    marks_path(path).symlink_to(victim)
    with pytest.raises(MarksRefused, match="symbolic link"):
        open_marks(path, b"k" * 32, "id")
    marks_path(path).unlink()
    os.link(victim, marks_path(path))
    with pytest.raises(MarksRefused, match="hard links"):
        open_marks(path, b"k" * 32, "id")
    marks_path(path).unlink()
    take_power_up_then_die(path)
    assert victim.read_bytes() == b"precious"
