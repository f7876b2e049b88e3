"""The floor's own Mosquitto (`etg floor serve --start-broker`) ends with the process
that started it, even one killed with kill -9: an orphan would keep the floor's port."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from floor_rig import free_port
from waiting import child_ends_with_killed_parent

from firmware.floor.certs import make_floor_certs

REPO = Path(__file__).resolve().parents[2]


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
    child_ends_with_killed_parent(script, pid_file, REPO, "the broker")
