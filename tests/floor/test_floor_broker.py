"""The floor's own Mosquitto (`etg floor serve --start-broker`) ends with the process
that started it, even one killed with kill -9: an orphan would keep the floor's port."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from floor_rig import free_port
from waiting import DEADLINE_S

from firmware.floor.certs import make_floor_certs

REPO = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto")
                    .exists(), reason="mosquitto is not installed (make setup installs it)")
def test_the_broker_ends_with_the_floor_service_killed(tmp_path: Path) -> None:
    floor = tmp_path / "floor"
    make_floor_certs(floor, ["T1"])
    pid_file = tmp_path / "broker.pid"
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from firmware.floor.broker import start_broker
        p = start_broker(Path({str(floor)!r}), {free_port()})
        Path({str(pid_file)!r}).write_text(str(p.pid))
        time.sleep(600)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=REPO)
    broker = 0
    try:
        deadline = time.monotonic() + DEADLINE_S
        while not pid_file.exists() or not pid_file.read_text():
            assert parent.poll() is None and time.monotonic() < deadline, \
                "the broker was never started"
            time.sleep(0.05)
        broker = int(pid_file.read_text())
        assert _alive(broker)
        parent.send_signal(signal.SIGKILL)
        parent.wait(DEADLINE_S)
        while _alive(broker):
            assert time.monotonic() < deadline, "the broker outlived the killed service"
            time.sleep(0.05)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if broker and _alive(broker):
            subprocess.run(["kill", "-9", str(broker)], check=False)
