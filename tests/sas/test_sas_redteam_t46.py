"""Issue 46, this stop's own red team of the SAS boundary (a hostile host with
docs/sas.md): each attack that found something is a test here, named for it."""

from __future__ import annotations

import time
from pathlib import Path

from sas_rig import sas_table, wait_until

from drivers.sas.framing import long_poll
from firmware.journal import EventCode
from firmware.table.sas import requests as sas_requests


def _floor_commands(rig: object) -> int:
    journal = rig.ctl.journal  # type: ignore[attr-defined]
    return sum(1 for r in journal.records(kinds=["event"])
               if r.code in (int(EventCode.FLOOR_COMMAND), int(EventCode.TABLE_CLOSED),
                             int(EventCode.TABLE_OPENED)))


def test_finding_a_host_toggling_shutdown_and_startup_filled_the_journal(
        tmp_path: Path) -> None:
    """A host alternating 01 and 02 to one address as fast as the line goes journaled
    684 events in 5 s (137 a second; 12 million a day) from one address. Now a startup
    sooner than ENABLE_HOLDOFF_S after the machine's last shutdown or startup waits for
    it (the latest wins); a shutdown is never held (fail closed)."""
    with sas_table(tmp_path) as rig:
        port = rig.host.port
        before = _floor_commands(rig)
        t0 = time.monotonic()
        n = 0
        while time.monotonic() - t0 < 3.0:
            n += 1
            port.drain()
            port.send(long_poll(1, 0x01 if n % 2 else 0x02))
            time.sleep(0.003)
        port.send(long_poll(1, 0x01))  # the last word: shut down
        rig.settle()
        assert 1 in rig.ctl.floor_gate.closed_seats  # a shutdown at once, never held
        changes = _floor_commands(rig) - before
        # one disable and one enable a hold-off at most (and the first pair at once)
        assert n > 300 and changes <= 2 * (3.0 / sas_requests.ENABLE_HOLDOFF_S + 2) * 2, (
            n, changes)
        # a startup now is carried out once its hold-off ends, and only then
        port.send(long_poll(1, 0x02))
        rig.settle()
        assert 1 in rig.ctl.floor_gate.closed_seats
        wait_until("the held startup", lambda: (rig.settle(), 1 not in
                                                rig.ctl.floor_gate.closed_seats)[1],
                   timeout=sas_requests.ENABLE_HOLDOFF_S + 5)
        # a shutdown after a held startup cancels it
        port.send(long_poll(1, 0x01))
        rig.settle()
        port.send(long_poll(1, 0x02))
        time.sleep(0.2)
        port.send(long_poll(1, 0x01))
        time.sleep(sas_requests.ENABLE_HOLDOFF_S + 0.5)
        rig.settle()
        assert 1 in rig.ctl.floor_gate.closed_seats


def test_finding_an_af_asking_24_meters_raised_inside_the_link(tmp_path: Path) -> None:
    """An AF poll asking 24 meters (the link took up to 32) needs an answer of 266 bytes,
    more than its one length byte can say: the answer raised inside the machine (counted
    `respond_error`, a hostile host's way to exercise an internal error at will), and 6F/AF
    with 13 to 23 meters and 2F with 11 or more were answered past the protocol's limits
    (2F: ten meters; 6F/AF: twelve). Now a poll asking more than the protocol allows is
    ignored and counted like any poll the machine does not answer."""
    from drivers.sas.framing import long_poll

    def ask(cmd: int, n: int) -> bytes:
        code = b"\x0c" if cmd == 0x2F else b"\x0c\x00"
        port.drain()
        port.send(long_poll(1, cmd, b"\x00\x00" + code * n, variable=True))
        got = port.read(3, time.monotonic() + 1.0)
        if got:
            got += port.read(got[2] + 2, time.monotonic() + 1.0)
        return got

    with sas_table(tmp_path) as rig:
        port = rig.host.port
        assert len(ask(0x2F, 10)) == 5 + 2 + 10 * 5
        for cmd in (0x6F, 0xAF):
            size = 5 if cmd == 0x6F else 8
            assert len(ask(cmd, 12)) == 5 + 2 + 12 * (3 + size)
        for cmd, n in ((0x2F, 11), (0x2F, 40), (0x6F, 13), (0xAF, 13), (0xAF, 24),
                       (0x6F, 32)):
            assert ask(cmd, n) == b"", (hex(cmd), n)
        rig.settle()
        counts = rig.svc.links[0].counts
        assert counts["respond_error"] == 0 and counts["unanswered"] >= 6, dict(counts)


def test_finding_a_host_flooding_polls_it_never_reads_killed_the_link_process(
        tmp_path: Path) -> None:
    """A host writing polls as fast as a pty takes them and never reading the answers:
    the link process at SCHED_FIFO never blocked for 200 ms, so its RLIMIT_RTTIME guard
    killed it (exit -24), restarted and journaled (1104) every few seconds, the host's
    polls unanswered meanwhile. Now a process busy 10 ms without waiting sleeps 2 ms:
    it never dies of a flood and leaves its core to the table part of the time."""
    import contextlib
    import os
    import threading

    import pytest

    with sas_table(tmp_path) as rig:
        link = rig.svc.links[0]
        if not str(getattr(link, "granted", "")).startswith("SCHED_FIFO"):
            pytest.skip(f"the link process runs at {link.granted}: no RT guard to trip")
        fd = os.open(rig.port.path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        stop = threading.Event()

        def flood() -> None:
            burst = long_poll(1, 0x1A, crc=False) * 500
            while not stop.is_set():
                with contextlib.suppress(BlockingIOError):
                    os.write(fd, burst)

        t = threading.Thread(target=flood, daemon=True)
        t.start()
        try:
            time.sleep(4.0)
        finally:
            stop.set()
            t.join(5)
            os.close(fd)
        rig.host.port.drain()
        time.sleep(0.3)
        rig.host.port.drain()
        assert rig.host.long(1, 0x1A, crc=False, answer=8)  # answered at once after
        rig.settle()
        assert link.restarts == 0, dict(link.counts)
        assert not [r for r in rig.ctl.journal.records(kinds=["event"])
                    if r.code == int(EventCode.SAS_LINK_RESTARTED)]


def test_the_soak_tells_a_read_one_commit_behind_from_a_wrong_meter(
        tmp_path: Path) -> None:
    """The soak forgives no read: one that is not the journal's credits before the poll
    or after its answer is a mismatch, even if it is equal a moment later (issue 46
    point 3: the link never answers one commit behind)."""
    from types import SimpleNamespace

    from drivers.sas.framing import bcd
    from firmware.bench import soak_sas

    class FakeHost:
        def __init__(self, answers: list[int]) -> None:
            self.answers = answers
            self.port = SimpleNamespace(drain=lambda: None, send=lambda b: None,
                                        read=lambda n, t: b"\x00")

        def long(self, a: int, cmd: int, **kw: object) -> bytes:
            return bcd(self.answers.pop(0), 4)  # the meter, as Host.long gives it

    for answers, bad in (([900, 1000], 1), ([900, 900], 1), ([1000], 0)):
        soak = soak_sas.SoakHost(1, tmp_path / "log", transfers=False,
                                 journal=tmp_path / "j.sqlite")
        soak._credits = lambda a: 1000  # type: ignore[method-assign]
        soak._poll(FakeHost(answers), 1)  # type: ignore[arg-type]
        assert len(soak.meter_mismatches) == bad, answers
        assert soak.meter_check().ok == (not bad)
