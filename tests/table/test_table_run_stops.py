"""How `etg run` ends and what it says when nobody can play (issue 38, item 14).

Ctrl-C at a terminal (SIGINT to the whole foreground process group) ends the table like
every long `etg` command: one line, exit 130, no traceback of it or of the simulated shoe
it started; SIGTERM (systemd) stays an ordinary stop, exit 0. A headless table without
automatic players says that nobody will press SHUFFLE, and how to drive it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from waiting import Lines, stopped_at_exit

REPO = Path(__file__).resolve().parents[2]
#: a line of the standard log format (logsetup): "12:00:00 INFO    etg.table: ..."
LOG_LINE = re.compile(r"^\d\d:\d\d:\d\d [A-Z]+ +[\w.]+: ")


def _env() -> dict[str, str]:
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", PYGAME_HIDE_SUPPORT_PROMPT="1")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def _run(*argv: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "firmware", "run", *argv], cwd=cwd,
                            env=_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_ctrl_c_stops_the_table_with_one_line_and_exit_130() -> None:
    with tempfile.TemporaryDirectory(prefix="etg-") as d:  # short: the attendant socket
        proc = _run("--headless", "--auto-play", "--seats", "1", "--pace", "0",
                    "--journal", "j.sqlite", cwd=Path(d))
        with stopped_at_exit(proc, signal.SIGKILL):
            assert proc.stdout is not None and proc.stderr is not None
            out, err = Lines(proc.stdout), Lines(proc.stderr)
            out.wait_for("a round played", lambda line: line.startswith("round 1 "))
            os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
            code = proc.wait(60)
            err.wait_closed()
        ours = [line for line in err.lines if not LOG_LINE.match(line)]
        assert code == 130, err.text()
        assert ours == ["etg: interrupted: the table stopped (journal j.sqlite)"], err.text()


def test_sigterm_is_an_ordinary_stop() -> None:
    with tempfile.TemporaryDirectory(prefix="etg-") as d:
        proc = _run("--headless", "--auto-play", "--seats", "1", "--pace", "0",
                    "--journal", "j.sqlite", cwd=Path(d))
        with stopped_at_exit(proc, signal.SIGKILL):
            assert proc.stdout is not None and proc.stderr is not None
            out, err = Lines(proc.stdout), Lines(proc.stderr)
            out.wait_for("a round played", lambda line: line.startswith("round 1 "))
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(60)
            err.wait_closed()
        assert code == 0, err.text()
        assert "interrupted" not in err.text()


def test_a_headless_table_without_players_says_nobody_will_press() -> None:
    with tempfile.TemporaryDirectory(prefix="etg-") as d:
        proc = _run("--headless", "--panel", "sim", "--journal", "j.sqlite", cwd=Path(d))
        with stopped_at_exit(proc, signal.SIGTERM):
            assert proc.stderr is not None
            err = Lines(proc.stderr)
            at = err.wait_for("the hint", lambda line: "nobody will press SHUFFLE" in line)
            assert "--auto-play" in err.lines[at] and "--control SOCKET" in err.lines[at]
