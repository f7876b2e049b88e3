"""`etg shoe sim`, `etg shoe monitor` and `etg shoe ctl` as a technician and a bench use
them: real processes, real pseudo-terminals, real signals."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest
from waiting import DEADLINE_S, Lines, stopped_at_exit, wait_for

from drivers.shoe.cli import parse_cards
from drivers.shoe.sim_control import control
from etgcore.errors import UserError

ETG = [sys.executable, "-m", "firmware.cli"]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}


def etg(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ETG, *args], capture_output=True, text=True, timeout=timeout,
                          env=ENV, cwd=os.path.dirname(os.path.dirname(os.path.dirname(
                              os.path.abspath(__file__)))))


@pytest.fixture
def sim_process(tmp_path) -> Iterator[tuple[subprocess.Popen[str], str, str]]:
    """`etg shoe sim --pty --control SOCK` in its own process: (process, pty path, socket)."""
    sock = str(tmp_path / "shoe.ctl")
    proc = subprocess.Popen(
        [*ETG, "shoe", "sim", "--pty", "--cards", "AS,KD,7C,2H,9S,QH", "--pace", "0.02",
         "--cut-after", "4", "--control", sock, "--time-scale", "0.2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    with stopped_at_exit(proc, signal.SIGINT):
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()  # the FIRST line is the pty path
        assert path.startswith("/dev/pts/"), path
        wait_for("the simulator's control socket", lambda: os.path.exists(sock))
        yield proc, path, sock


@contextlib.contextmanager
def monitor(*args: str) -> Iterator[Lines]:
    """`etg shoe monitor ARGS` running: its output lines as they come; Ctrl-C at the end
    (the monitor's own way out, exit 0), a kill if that does not stop it."""
    proc = subprocess.Popen([*ETG, "shoe", "monitor", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV)
    assert proc.stdout is not None
    with stopped_at_exit(proc, signal.SIGINT):
        yield Lines(proc.stdout)
    assert proc.returncode == 0


def test_sim_pty_prints_the_path_first_and_monitor_json_shows_every_event(sim_process) -> None:
    _proc, path, _sock = sim_process
    out = etg("shoe", "monitor", "--port", path, "--json", "--unlock", "--cards", "6",
              "--time-scale", "0.2")
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[:2] == ["link-up", "hello"]
    assert [e["card"] for e in events if e["event"] == "card"] == ["AS", "KD", "7C", "2H",
                                                                   "9S", "QH"]
    assert "cut" in kinds and kinds.index("cut") == kinds.index("card") + 4


def test_monitor_human_output_new_query_and_fault_code(sim_process) -> None:
    _proc, path, sock = sim_process
    assert control(sock, "fault lid") == "ok"
    with monitor("--port", path, "--query", "--lock", "--json", "--time-scale", "0.2") as out:
        out.wait_for("the status", lambda line: json.loads(line)["event"] == "status")
        events = [json.loads(line) for line in out.lines]
    faults = [e for e in events if e["event"] == "fault"]
    assert faults and faults[0]["code"] == "LID"
    assert [e["state"] for e in events if e["event"] == "status"] == ["FAULT"]
    with monitor("--port", path, "--new", "6", "--time-scale", "0.2") as human:
        answer = human.wait_for("the answer to NEW", lambda line: " NEW" in line)
        assert "hello: ETG-SHOE-SIM" in human.text()
        assert "ack NEW" in human.lines[answer]  # locked gate (reconnect): NEW is accepted


def test_monitor_ctrl_c_exits_0_quietly(sim_process) -> None:
    _proc, path, _sock = sim_process
    mon = subprocess.Popen([*ETG, "shoe", "monitor", "--port", path, "--time-scale", "0.2"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    with stopped_at_exit(mon, signal.SIGKILL):
        assert mon.stdout is not None and mon.stderr is not None
        out, errors = Lines(mon.stdout), Lines(mon.stderr)
        try:
            out.wait_for("the shoe's hello", lambda line: "hello:" in line)  # in its loop
        except AssertionError as exc:  # say why the monitor stopped, if it did
            raise AssertionError(f"{exc}\nexit code {mon.poll()}, stderr:\n"
                                 f"{errors.text()}") from None
        mon.send_signal(signal.SIGINT)
        assert mon.wait(DEADLINE_S) == 0
        err = errors.wait_closed()
    assert "Traceback" not in err and "KeyboardInterrupt" not in err


def test_monitor_bad_port_is_a_one_line_error() -> None:
    out = etg("shoe", "monitor", "--port", "/dev/no-such-shoe")
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0
    assert "cannot open shoe port /dev/no-such-shoe" in out.stderr


def test_ctl_commands_a_simulator_in_another_process(sim_process) -> None:
    proc, _path, sock = sim_process
    out = etg("shoe", "ctl", "--control", sock, "status")
    assert out.returncode == 0 and out.stdout.startswith("ok ")
    status = json.loads(out.stdout[3:])
    assert status["state"] == "LOCKED" and status["remaining"] == 6
    assert control(sock, "cards TD 9C") == "ok"
    assert json.loads(control(sock, "status")[3:])["remaining"] == 2
    assert control(sock, "pace 0.5") == "ok"
    assert control(sock, "frame ERR,MISREAD") == "ok"
    assert control(sock, "fault nosuch").startswith("error: unknown fault")
    bad = etg("shoe", "ctl", "--control", sock, "cards", "ZZ")
    assert bad.returncode == 2 and "not a card" in bad.stdout
    assert control(sock, "stop") == "ok"
    assert proc.wait(DEADLINE_S) == 0


def test_sim_seed_hex_is_refused_in_production_mode(monkeypatch) -> None:
    """Guide principle 7: bench powers stay on the bench (the refusal is the shoe's own,
    checked on a production configuration whatever else production demands)."""
    import dataclasses

    import firmware.cli.command_line
    from drivers.shoe.cli import _sim_settings
    from firmware.config import load_config

    cfg = load_config(None, [])
    prod = dataclasses.replace(cfg, table=dataclasses.replace(cfg.table, mode="production"))
    monkeypatch.setattr(firmware.cli.command_line, "load_table_config", lambda args: prod)
    parser = firmware.cli.build_parser()
    args = parser.parse_args(["shoe", "sim", "--pty", "--seed-hex", "00ff"])
    with pytest.raises(UserError, match="production mode refuses it"):
        _sim_settings(args)
    # bench: fine
    monkeypatch.setattr(firmware.cli.command_line, "load_table_config", lambda args: cfg)
    assert _sim_settings(args).seed == bytes.fromhex("00ff")


def test_sim_listen_serves_tcp_on_loopback() -> None:
    proc = subprocess.Popen([*ETG, "shoe", "sim", "--listen", "0", "--cards", "AS,KD",
                             "--pace", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=ENV)
    with stopped_at_exit(proc, signal.SIGINT):
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("socket://127.0.0.1:")
        out = etg("shoe", "monitor", "--port", url, "--json", "--unlock", "--cards", "2")
        assert out.returncode == 0, out.stderr
        assert [json.loads(x).get("card") for x in out.stdout.splitlines()
                if '"card"' in x] == ["AS", "KD"]


@pytest.mark.parametrize("args, message", [
    (["--pty", "--decks", "9"], "1 to 8 decks"),
    (["--pty", "--penetration", "1.5"], "--penetration"),
    (["--pty", "--fault", "bogus"], "unknown fault"),
    (["--pty", "--cards", "AS,XX"], "'XX' is not a card"),
    (["--listen", "nope:x"], "[HOST:]PORT"),
    (["--pty", "--cards", "/no/such/round.txt"], "no such file"),
    (["--pty", "--link", "/no/such/dir/etg-shoe"], "--link /no/such/dir/etg-shoe"),
])
def test_sim_bad_options_are_one_line_errors(args: list[str], message: str) -> None:
    out = etg("shoe", "sim", *args)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_parse_cards_reads_a_file_with_comments(tmp_path) -> None:
    f = tmp_path / "cards.txt"
    f.write_text("# round 1\nAS KD\n7c, 2H  # dealer\n")
    assert parse_cards(str(f)) == ["AS", "KD", "7C", "2H"]
    with pytest.raises(UserError):
        parse_cards("")


def test_sim_link_never_replaces_a_file(tmp_path) -> None:
    """--link replaces a stale symlink of an earlier run, but not a file kept there."""
    keep = tmp_path / "keep"
    keep.write_text("precious")
    out = etg("shoe", "sim", "--pty", "--link", str(keep))
    assert out.returncode == 2 and "not a symlink" in out.stderr
    assert keep.read_text() == "precious"


def test_sim_control_never_replaces_a_file_and_is_ready_when_it_appears(tmp_path) -> None:
    """--control replaces a stale socket only; the socket appears already listening (a
    bench that waits for the file and connects at once is never refused)."""
    keep = tmp_path / "keep"
    keep.write_text("precious")
    out = etg("shoe", "sim", "--pty", "--control", str(keep))
    assert out.returncode == 2 and "not a socket" in out.stderr
    assert keep.read_text() == "precious"
    sock = str(tmp_path / "shoe.ctl")
    proc = subprocess.Popen([*ETG, "shoe", "sim", "--pty", "--control", sock],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    with stopped_at_exit(proc, signal.SIGINT):
        wait_for("the control socket", lambda: os.path.exists(sock), every=0.001)
        assert control(sock, "status").startswith("ok")


def test_sim_sigterm_the_moment_it_says_it_is_up_stops_it_cleanly(tmp_path) -> None:
    """SIGTERM sent as soon as the pty path line appears (the simulator's "ready" for
    the table) is already the simulator's own: exit 0. It once came before the handler,
    which was installed after the control socket, and killed the process outright."""
    sock = str(tmp_path / "shoe.ctl")
    proc = subprocess.Popen([*ETG, "shoe", "sim", "--pty", "--control", sock],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    with stopped_at_exit(proc, signal.SIGKILL):
        assert proc.stdout is not None
        assert proc.stdout.readline().startswith("/dev/pts/")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(DEADLINE_S) == 0
        assert not os.path.exists(sock)


def test_sim_sigterm_stops_it_cleanly(sim_process) -> None:
    """A service manager stops the simulator with SIGTERM: exit 0, the control socket
    gone, no traceback (the handler only notes the stop; the port is closed and
    the thread joined by the main loop, never inside the handler)."""
    proc, _path, sock = sim_process
    assert control(sock, "status").startswith("ok")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(DEADLINE_S) == 0
    assert proc.stderr is not None
    assert "Traceback" not in proc.stderr.read()
    assert not os.path.exists(sock)
