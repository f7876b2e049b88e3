"""The first hour at a table: `make run` works every time, and a missing shoe says so.

`make run` is `etg run --demo`: headless auto-play with 3 seats on one machine, a 7-seat
window on another — and a technician may run both, in either order, on one clone. Each
demo configuration keeps its own journal (and resumes it), so neither refuses the other.
A shoe that is not there is a link-down fault from the very start: logged, a tilt the
screen shows, and in `etg events`, while the driver keeps retrying.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from waiting import Lines, stopped_at_exit

REPO = Path(__file__).resolve().parents[2]


def _env() -> dict[str, str]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def etg(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "firmware", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO, env=_env())


def test_make_run_twice_with_different_seat_counts_in_either_order() -> None:
    # a short directory: the attendant socket beside the journal must fit a Unix path
    with tempfile.TemporaryDirectory(prefix="etg-") as d:
        _run_twice(Path(d))


def _run_twice(tmp_path: Path) -> None:
    where = f'journal.path="{tmp_path / "journal.sqlite"}"'
    runs = [("7",), ("3",), ("7",)]  # 7 seats, then 3 (fewer seats holding credits), then 7
    for (seats,) in runs:
        out = etg("--set", where, "run", "--demo", "--seats", seats, "--rounds", "1",
                  "--pace", "0.02")
        assert out.returncode == 0, out.stderr[-1500:]
        assert "round 1 " in out.stdout or "round " in out.stdout
    journals = sorted(p.name for p in tmp_path.glob("demo-*.sqlite"))
    assert journals == ["demo-blackjack-3-auto.sqlite", "demo-blackjack-7-auto.sqlite"]
    ev = etg("events", "--json", "--journal", str(tmp_path / journals[1]))
    codes = [json.loads(x)["code"] for x in ev.stdout.splitlines()]
    assert codes.count(100) == 2  # the 7-seat demo journal was resumed, not replaced


def test_a_missing_shoe_is_a_link_down_tilt_from_the_start(tmp_path: Path) -> None:
    j = tmp_path / "j.sqlite"
    p = subprocess.Popen(
        [sys.executable, "-m", "firmware", "run", "--headless", "--seats", "2",
         "--shoe", str(tmp_path / "nonexistent-port"), "--journal", str(j)],
        cwd=REPO, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with stopped_at_exit(p, signal.SIGINT):
        assert p.stderr is not None
        err = Lines(p.stderr)
        err.wait_for("the table to be ready", lambda line: "table ready" in line)
        at = err.wait_for("the shoe link down", lambda line: "shoe link down" in line)
        assert "cannot open shoe port" in err.lines[at], err.text()
    ev = etg("events", "--json", "--journal", str(j))
    events = [json.loads(x) for x in ev.stdout.splitlines()]
    names = [e["event"] for e in events]
    assert "shoe-link-down" in names and "tilt" in names, names
    tilt = next(e for e in events if e["event"] == "tilt")
    assert tilt["code"] == "LINK" and "cannot open shoe port" in tilt["cause"]
    down = [e for e in events if e["event"] == "power-down"]
    assert down and down[-1]["reason"] == "stopped by SIGINT"  # not "rounds done" after 0 rounds
