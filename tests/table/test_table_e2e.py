"""End to end: `etg run` with the shoe simulator on a real pty and the simulated panel,
then the attendant commands on its journal (issue 9)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from table_process import running_table
from waiting import DEADLINE_S, stopped_at_exit

from firmware.journal.key import create as create_key

REPO = Path(__file__).resolve().parents[2]


Done = subprocess.CompletedProcess[str]


def etg(*args: str, timeout: float = 180, cwd: Path | None = None) -> Done:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("DISPLAY", None)
    return subprocess.run([sys.executable, "-m", "firmware", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd or REPO, env=env)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Done]:
    j = tmp_path_factory.mktemp("e2e") / "journal.sqlite"
    out = etg("run", "--headless", "--auto-play", "--seats", "3", "--rounds", "6",
              "--pace", "0.03", "--journal", str(j))
    return j, out


def test_headless_auto_play_prints_a_line_per_round(played: tuple[Path, object]) -> None:
    _, out = played
    assert out.returncode == 0, out.stderr[-2000:]  # type: ignore[attr-defined]
    lines = [x for x in out.stdout.splitlines() if x.startswith("round ")]  # type: ignore[attr-defined]
    assert len(lines) >= 6


def test_meters_balance_and_credits_in_recorded(played: tuple[Path, object]) -> None:
    j, _ = played
    out = etg("meters", "--json", "--journal", str(j))
    assert out.returncode == 0, out.stderr
    m = json.loads(out.stdout)
    for key in ("games_played", "wagered", "paid", "credits_in", "credits_out", "credits"):
        assert isinstance(m[key], int)
    assert m["credits_in"] == 3 * 1_000_000  # the auto-players' first credits
    assert m["credits"] == m["credits_in"] - m["credits_out"] - m["wagered"] + m["paid"]
    assert m["games_played"] + m["games_voided"] >= 6
    for s in m["seats"]:
        assert s["credits"] == s["credits_in"] - s["credits_out"] - s["wagered"] + s["paid"]


def test_audit_chain_verifies(played: tuple[Path, object]) -> None:
    j, _ = played
    out = etg("audit", "verify", "--journal", str(j))
    assert out.returncode == 0 and out.stdout.startswith("ok:")


def test_recall_and_events(played: tuple[Path, object]) -> None:
    j, _ = played
    out = etg("recall", "--last", "2", "--journal", str(j))
    assert out.returncode == 0 and out.stdout.count("RECALL round") == 2
    assert "$" in out.stdout and "cents" not in out.stdout  # amounts in dollars
    out = etg("recall", "--last", "1", "--json", "--journal", str(j))
    (rec,) = json.loads(out.stdout)  # one JSON document: the rounds, oldest first
    assert rec["state"] in ("settled", "voided") and rec["inputs"]
    out = etg("events", "--json", "--journal", str(j))
    codes = [json.loads(x)["code"] for x in out.stdout.splitlines()]
    assert 100 in codes and 101 in codes and 400 in codes  # power up, down, config


def test_attendant_commands_need_a_journal(tmp_path: Path) -> None:
    out = etg("meters", "--journal", str(tmp_path / "none.sqlite"))
    assert out.returncode == 2 and "no journal" in out.stderr and "Traceback" not in out.stderr


def test_credits_add_offline_then_meters(tmp_path: Path) -> None:
    j = tmp_path / "j.sqlite"
    out = etg("credits", "add", "--seat", "2", "--cents", "2500", "--journal", str(j))
    assert out.returncode == 0, out.stderr
    m = json.loads(etg("meters", "--json", "--journal", str(j)).stdout)
    assert m["credits_in"] == 2500 and m["credits"] == 2500
    bad = etg("credits", "out", "--seat", "2", "--cents", "9999", "--journal", str(j))
    assert bad.returncode == 2 and "cannot pay out" in bad.stderr


def test_unknown_key_on_run_names_it() -> None:
    out = etg("--set", "nosuchkey=1", "run")
    assert out.returncode == 2 and "nosuchkey" in out.stderr


def test_production_refuses_the_bench_control_channel(tmp_path: Path) -> None:
    out = etg("--set", "table.mode=production", "--set", "shoe.port=/dev/null", "--set",
              "panel.backend=gpio", "run", "--headless", "--control",
              str(tmp_path / "c.sock"), "--journal", str(tmp_path / "j.sqlite"))
    assert out.returncode == 2 and "bench power" in out.stderr


def test_production_start_runs_software_authentication(tmp_path: Path) -> None:
    """Production power-up self-tests: without a signed manifest the table refuses to
    start, says why in one line, and journals the failed check (event 901)."""
    j = tmp_path / "j.sqlite"
    env_key = tmp_path / "absent.pub"
    prod = ("--set", "table.mode=production", "--set", "shoe.port=/dev/null", "--set",
            "panel.backend=gpio")
    create_key(tmp_path / "j.sqlite.key")  # made at installation
    began = etg(*prod, "journal", "init", "--reason", "first install", "--journal", str(j))
    assert began.returncode == 0, began.stderr
    # `etg run` checks the panel backend can be opened before anything else (issue 38):
    # a stand-in RPi.GPIO, never used (the start stops before the devices), lets it by
    path = os.pathsep.join([str(REPO / "tests" / "stand_ins"),
                            os.environ.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-m", "firmware", "--set", "table.mode=production", "--set",
         "shoe.port=/dev/null", "--set", "panel.backend=gpio", "run", "--headless",
         "--journal", str(j)],
        capture_output=True, text=True, timeout=120, cwd=REPO,
        env=dict(os.environ, ETG_RELEASE_PUBKEY=str(env_key), PYTHONPATH=path),
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    codes = [json.loads(x)["code"] for x in etg("events", "--json", "--journal", str(j)).stdout
             .splitlines()]
    assert 100 in codes and 901 in codes


def test_sd_notify_ready_and_watchdog(tmp_path: Path) -> None:
    """systemd: READY=1 once the devices are up, WATCHDOG=1 at half of WATCHDOG_USEC.
    Waits for the two messages (not for rounds to be played), then stops the table; the
    process is stopped whatever happens (kill if SIGTERM is not enough)."""
    import socket

    addr = str(tmp_path / "notify.sock")
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", NOTIFY_SOCKET=addr, WATCHDOG_USEC="400000")
    env.pop("DISPLAY", None)
    got: list[str] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(addr)
        sock.settimeout(1.0)
        proc = subprocess.Popen(
            [sys.executable, "-m", "firmware", "run", "--headless", "--seats", "1", "--quiet",
             "--journal", str(tmp_path / "j.sqlite")],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        with stopped_at_exit(proc):
            deadline = time.monotonic() + DEADLINE_S
            while not ("READY=1" in got and "WATCHDOG=1" in got):
                assert proc.poll() is None, f"the table exited ({proc.returncode}); got {got}"
                assert time.monotonic() < deadline, f"no READY=1 and WATCHDOG=1; got {got}"
                with contextlib.suppress(TimeoutError):
                    got += sock.recv(4096).decode().splitlines()
    assert got.index("READY=1") < got.index("WATCHDOG=1")
    assert proc.returncode == 0


def test_credits_to_a_running_table_go_through_the_attendant_channel(tmp_path: Path) -> None:
    """`etg credits add` while the table runs: the table process journals the transfer."""
    j = tmp_path / "j.sqlite"
    with running_table(j):
        out = etg("credits", "add", "--seat", "2", "--cents", "4200", "--journal", str(j))
        assert out.returncode == 0, out.stderr
        assert "+$42" in out.stdout  # dollars, as every amount a person reads
        bad = etg("credits", "out", "--seat", "1", "--cents", "1", "--journal", str(j))
        assert bad.returncode == 2 and "cannot pay out" in bad.stderr
        m = json.loads(etg("meters", "--json", "--journal", str(j)).stdout)
        assert m["credits_in"] == 4200 and m["credits"] == 4200 and m["balanced"]
    assert not (tmp_path / "j.sqlite.attendant.sock").exists()
