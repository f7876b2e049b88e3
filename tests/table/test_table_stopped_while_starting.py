"""SIGTERM while `etg run` is still starting: what started is undone and recorded.

systemd may stop a table that has not yet said READY (a `systemctl stop` racing the
start, a start that took too long). The signal's default action would end the process
with no POWER_DOWN in the journal, as a power cut would; the table instead unwinds what
it started and says why. The signal is sent from inside the start, right after the
devices are up (the last step before READY), so the moment is certain.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from firmware.journal import EventCode, open_existing

REPO = Path(__file__).resolve().parents[2]

_START = """
import os, signal, sys
import firmware.table.service.run as service
from firmware.cli import main

started = service.start_devices

def start_then_sigterm(*args):
    started(*args)
    os.kill(os.getpid(), signal.SIGTERM)

service.start_devices = start_then_sigterm
code = main(sys.argv[1:])
assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL, "handler left in place"
sys.exit(code)
"""


def test_sigterm_before_ready_stops_cleanly_with_power_down(tmp_path: Path) -> None:
    journal = tmp_path / "j.sqlite"
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("DISPLAY", None)
    done = subprocess.run(
        [sys.executable, "-c", _START, "run", "--headless", "--seats", "2", "--shoe", "sim",
         "--journal", str(journal)], cwd=REPO, env=env, capture_output=True, text=True,
        timeout=120)
    assert done.returncode == 0, done.stderr
    assert "stopped by SIGTERM while starting (not ready yet)" in done.stderr
    assert "table ready" not in done.stderr
    j = open_existing(journal)
    try:
        events = [r for r in j.records(kinds=["event"])]
    finally:
        j.close()
    codes = [r.code for r in events]
    assert int(EventCode.READY) not in codes
    assert codes[-1] == int(EventCode.POWER_DOWN)
    assert events[-1].body["reason"] == "stopped by SIGTERM while starting"
