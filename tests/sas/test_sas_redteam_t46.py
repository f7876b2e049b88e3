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
