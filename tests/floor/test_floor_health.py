"""Supervised threads and measured health (issue 43): a thread that ends or stops beating
is a fault (once; the banner, then the service exits 70 for systemd); a late beat, a
floor that no longer hears its own heartbeat through the broker, or no table heard from
while tables are online is a warning on every page, pushed when it comes and goes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from firmware.floor import health as health_mod
from firmware.floor.health import BEAT_WARN_S, QUIET_S, Health
from firmware.floor.supervise import EXIT_FAULT, Supervisor


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_a_thread_that_ends_is_one_fault() -> None:
    faults: list[str] = []
    sup = Supervisor(faults.append)
    done = threading.Thread(target=lambda: None)
    done.start()
    done.join()
    sup.watch("store", 60, done)
    assert sup.check() == "the store thread has stopped"
    sup.check()
    assert faults == ["the store thread has stopped"]  # reported once


def test_a_thread_that_stops_beating_is_a_fault_only_while_judged() -> None:
    clock, faults, connected = Clock(), [], [False]
    sup = Supervisor(faults.append, clock=clock)
    sup.watch("network", 60, active=lambda: connected[0])
    sup.watch("store", 120)
    clock.t += 100
    sup.beat("store")
    assert sup.check() is None  # the network is not judged while the broker is away
    connected[0] = True
    clock.t += 59
    sup.beat("store")
    assert sup.check() is None and sup.ages()["network"] == 59
    clock.t += 2
    assert sup.check() == "the network thread is stuck (no heartbeat for 61 s)"
    assert len(faults) == 1


def _health(ages: dict[str, float], online: bool = True) -> tuple[Health, list[Any]]:
    h = Health()
    h.broker_up(True, "here")
    h.beats = lambda: dict(ages)
    h.expecting = lambda: online
    pushed: list[Any] = []
    h.listeners.append(pushed.append)
    return h, pushed


def test_a_late_beat_is_a_warning_on_every_page_pushed_when_it_comes_and_goes() -> None:
    ages = {"network": 1.0, "store": 0.5, "event loop": 0.2}
    h, pushed = _health(ages)
    h.review()
    assert h.snapshot()["warnings"] == [] and not pushed
    ages["network"] = BEAT_WARN_S["network"] + 3
    h.review()
    h.review()  # the same warning again: not pushed again
    assert len(pushed) == 1
    (w,) = pushed[0]["warnings"]
    assert "heartbeat through the broker has not come back" in w
    assert pushed[0]["threads"]["network"] == ages["network"]
    ages["network"] = 1.0
    h.review()
    assert len(pushed) == 2 and pushed[1]["warnings"] == []
    ages["store"] = BEAT_WARN_S["store"] + 1
    assert h.snapshot()["warnings"] == ["the store thread has not beaten for 16 s"]
    h.broker_up(False, "here")  # a broker away is its own banner, not the network's beat
    ages["store"], ages["network"] = 0.0, 1000.0
    assert h.snapshot()["warnings"] == []


def test_no_table_heard_while_tables_are_online_is_a_warning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    h, _pushed = _health({}, online=True)
    t0 = time.time()
    h.heard(t0)
    assert h.snapshot()["warnings"] == []
    monkeypatch.setattr(health_mod.time, "time", lambda: t0 + QUIET_S + 5)
    snap = h.snapshot()
    assert snap["newest_age_s"] == QUIET_S + 5
    assert snap["warnings"] == ["no message from any table for 95 s although tables are "
                                "online"]
    h.expecting = lambda: False  # an empty floor is quiet by right
    assert h.snapshot()["warnings"] == []


def test_the_banner_shows_every_warning() -> None:
    from firmware.floor.page_assets import COMMON_JS

    assert "for (const w of h.warnings || []) msgs.push(w);" in COMMON_JS


_DIES = """
import sys, threading, time
from firmware.floor import ingest
real = ingest.Ingest._run
def _run(self):
    end = time.monotonic() + 3
    while time.monotonic() < end and not self._stop:
        self.supervisor.beat("store"); time.sleep(0.2)
ingest.Ingest._run = _run  # the store thread ends after 3 s, as a bug would end it
from firmware.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not shutil.which("mosquitto") and not Path("/usr/sbin/mosquitto").exists(),
                    reason="mosquitto is not installed (make setup installs it)")
def test_a_dead_store_thread_ends_the_service_with_exit_70(tmp_path: Path) -> None:
    from floor_rig import free_port

    from firmware.floor.certs import make_floor_certs

    floor = tmp_path / "floor"
    make_floor_certs(floor, [])
    p = subprocess.run(
        [sys.executable, "-c", _DIES, "floor", "serve", "--dir", str(floor), "--start-broker",
         "--http", f"127.0.0.1:{free_port()}", "--broker", f"127.0.0.1:{free_port()}"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert p.returncode == EXIT_FAULT, p.stderr[-2000:]
    assert "floor service fault: the store thread has stopped" in p.stderr
