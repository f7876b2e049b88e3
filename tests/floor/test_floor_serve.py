"""`etg floor serve` as an operator meets it: a port in use is one line and exit 2 (the
pit view's, the broker's); the broker it starts is supervised (killed, it is started
again; the floor notices the loss within seconds and says so), its log lines labelled,
and it ends with the service."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from floor_rig import etg, free_port
from waiting import Lines, stop_process, wait_for

from firmware.floor.certs import make_floor_certs

if not shutil.which("mosquitto") and not Path("/usr/sbin/mosquitto").exists():
    pytest.skip("mosquitto is not installed (make setup installs it)", allow_module_level=True)


def _serve(floor: Path, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(etg("floor", "serve", "--dir", str(floor), *extra),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _holding(port: int) -> socket.socket:
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    s.listen(1)
    return s


@pytest.mark.parametrize("which", ["--http", "--broker"])
def test_a_port_in_use_is_one_line_and_exit_2(tmp_path: Path, which: str) -> None:
    floor = tmp_path / "floor"
    make_floor_certs(floor, [])
    http, broker = free_port(), free_port()
    taken = http if which == "--http" else broker
    with _holding(taken):
        p = _serve(floor, "--start-broker", "--http", f"127.0.0.1:{http}",
                   "--broker", f"127.0.0.1:{broker}")
        _out, err = p.communicate(timeout=60)
    lines = err.strip().splitlines()
    assert p.returncode == 2, err
    assert len(lines) == 1, err
    assert f"{which} 127.0.0.1:{taken}" in lines[0] and "the port is in use" in lines[0]
    assert f"give {which} HOST:PORT with a free port" in lines[0]


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        out += [int(c) for c in text]
    return out


def _mosquitto(pid: int) -> int | None:
    for c in _children(pid):
        try:
            if "mosquitto" in Path(f"/proc/{c}/cmdline").read_text():
                return c
        except OSError:
            continue
    return None


def _trespass(floor: Path, port: int) -> None:
    """T1's certificate writes T2's status and subscribes to T2's commands."""
    from firmware.floor.certs import ca_paths, identity
    from firmware.floor.mqtt import make_client

    me = identity(floor, "T1")
    c = make_client("T1", ca_paths(floor).cert, me.cert, me.key, clean=True)
    c.connect("127.0.0.1", port, 10)
    c.loop_start()
    c.subscribe("etg/command/T2", qos=1)
    c.publish("etg/table/T2/status", b'{"seq": 1}', qos=1).wait_for_publish(30)
    c.loop_stop()
    c.disconnect()


def test_the_broker_is_supervised_and_its_loss_is_seen(tmp_path: Path) -> None:
    floor = tmp_path / "floor"
    make_floor_certs(floor, ["T1"])
    http, broker = free_port(), free_port()
    p = _serve(floor, "--start-broker", "--http", f"127.0.0.1:{http}",
               "--broker", f"127.0.0.1:{broker}")
    assert p.stderr is not None
    out = Lines(p.stderr)
    try:
        out.wait_for("the floor connected", lambda s: "connected to the broker" in s)
        _trespass(floor, broker)  # the broker's log says what its ACL refused, labelled
        out.wait_for("the refused publish", lambda s: "broker: refused by the ACL: Denied "
                     "PUBLISH from T1" in s and "etg/table/T2/status" in s)
        out.wait_for("the subscription outside", lambda s: "broker: T1 subscribed to "
                     "etg/command/T2: outside what it may read" in s)
        first = wait_for("the broker process", lambda: _mosquitto(p.pid))
        at = len(out.lines)
        os.kill(first, signal.SIGKILL)
        out.wait_for("the loss of the broker", lambda s: "lost the broker" in s, at)
        out.wait_for("a restart", lambda s: "the broker ended" in s and "again in" in s, at)
        out.wait_for("the floor back on it", lambda s: "connected to the broker" in s
                     and "unreachable for" in s, at)
        second = wait_for("the new broker", lambda: _mosquitto(p.pid))
        assert second != first
    finally:
        code = stop_process(p)
    text = out.wait_closed()
    assert code == 0, text
    assert "should not be run as root" not in text
    assert not any(line.split(" ", 3)[-1][:1].isdigit() and ": " in line and "mosquitto"
                   in line.lower() and "broker:" not in line for line in out.lines)
    wait_for("the broker to end with the service", lambda: not Path(f"/proc/{second}").exists()
             or "Z" in Path(f"/proc/{second}/stat").read_text().split()[2])


def test_a_table_subscribing_outside_its_topics_is_reported(tmp_path: Path) -> None:
    """Mosquitto accepts any subscription and filters messages by the ACL; the
    supervisor reports the subscription itself, and the ACL's refusals of publishes."""
    from firmware.floor.broker_process import judge

    level, text = judge("1700000000: BJ-01 1 etg/command/BJ-02")
    assert level and "BJ-01 subscribed to etg/command/BJ-02: outside what it may read" in text
    assert judge("1700000000: BJ-01 1 etg/command/BJ-01")[0] == 0
    assert judge("1700000000: floor 1 etg/table/+/+")[0] == 0
    level, text = judge("1700000000: Denied PUBLISH from BJ-01 (d0, q1, r0, m1, "
                        "'etg/table/BJ-02/status', ... (1 bytes))")
    assert level and text.startswith("refused by the ACL: Denied PUBLISH from BJ-01")
    assert judge("1700000000: Received PUBLISH from BJ-01 (d0, q1, r0, m2, 'x', ...)")[0] == 0
    assert judge("1700000000: Warning: Mosquitto should not be run as root/administrator.") \
        == (0, "Warning: Mosquitto should not be run as root/administrator.")
    assert sys.executable  # the module imports nothing of the floor service's process


def test_a_broker_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    floor = tmp_path / "floor"
    make_floor_certs(floor, [])
    (floor / "broker.key").write_text("not a key\n")
    p = _serve(floor, "--start-broker", "--http", f"127.0.0.1:{free_port()}",
               "--broker", f"127.0.0.1:{free_port()}")
    _out, err = p.communicate(timeout=60)
    lines = err.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1, err
    assert "the broker did not start" in lines[0] and "key" in lines[0].lower(), lines[0]
