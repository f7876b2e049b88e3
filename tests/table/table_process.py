"""A real ``etg run`` table in its own process for the end-to-end tests: started, waited
for until it says it is ready, and always stopped again (also when the test fails)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from waiting import Lines, stop_process

REPO = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def running_table(journal: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    """``etg run --headless --seats 2 --quiet --journal JOURNAL ARGS...``, yielded once
    it has printed "table ready"; SIGTERM on the way out (kill if it does not stop)."""
    with running_table_lines(journal, *args) as (proc, _lines):
        yield proc


@contextlib.contextmanager
def running_table_lines(journal: Path, *args: str
                        ) -> Iterator[tuple[subprocess.Popen[str], Lines]]:
    """:func:`running_table`, with the table's stderr lines to wait on."""
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("DISPLAY", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "firmware", "run", "--headless", "--seats", "2", "--quiet",
         "--journal", str(journal), *args], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        lines = Lines(proc.stderr)
        lines.wait_for("the table to say it is ready", lambda line: "table ready" in line)
        yield proc, lines
    finally:
        stop_process(proc)
