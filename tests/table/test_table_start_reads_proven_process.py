"""Issue 42, finding 2's last gap with a real ``etg run``: a plain SQLite client edits
the journal over and over while the table starts.

The auto-players' grants are read at every start (seat 1 is granted credits until a
grant for it is in the journal). An editor flips seat 1's grant to seat 9 and back,
committing every few milliseconds, while ``etg run --auto-play`` starts, until the
table is ready. Whatever instant an edit lands at, a start either refuses (the proof
sees the edit, or the start's reading finds the journal changed since its proof) or
reads what it proved: seat 1 is never granted twice. On 2a21193 an edit that landed
between the proof and the reading of the grants granted seat 1 again within a few
tries."""

from __future__ import annotations

import contextlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from journal_rig import table_on

from firmware.journal import EventCode
from firmware.table.service.run import _grant_demo_credits

TRIES = 10
TO_9 = ("UPDATE records SET body = replace(body, '\"seat\":1', '\"seat\":9')"
        " WHERE kind = 'event' AND code = 800")
TO_1 = TO_9.replace('"seat":1', '"seat":X').replace('"seat":9', '"seat":1').replace(
    '"seat":X', '"seat":9')


def _editor(path: Path, stop: threading.Event, rnd: random.Random) -> None:
    """Flip seat 1's grant and back, a commit every few ms, ignoring our lock (a busy
    journal is tried again at once): as an attacker with the sqlite3 shell would."""
    db = sqlite3.connect(path, isolation_level=None, timeout=0.02)
    try:
        for statement in iter(lambda: TO_9 if rnd.random() < 0.5 else TO_1, None):
            if stop.is_set():
                break
            with contextlib.suppress(sqlite3.OperationalError):
                db.execute(statement)
            time.sleep(rnd.uniform(0.002, 0.03))
    finally:
        db.close()


def _ready_events(path: Path) -> int:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1)
        try:
            return int(db.execute("SELECT COUNT(*) FROM records WHERE code = ?",
                                  (int(EventCode.READY),)).fetchone()[0])
        finally:
            db.close()
    except sqlite3.Error:
        return -1


def _grants_of_seat_1(path: Path) -> int:
    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        db.execute(TO_1)  # the editor's last flip undone
        bodies = [json.loads(b) for (b,) in db.execute(
            "SELECT body FROM records WHERE kind = 'event' AND code = 800")]
    finally:
        db.close()
    return sum(1 for b in bodies if b.get("seat") == 1)


def test_finding_2_an_editor_loop_during_etg_run_never_has_a_grant_read_unproven(
        tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    ctl = table_on(path)
    _grant_demo_credits(ctl, ctl.journal, 2)
    ctl.journal.close()
    assert _grants_of_seat_1(path) == 1
    env = dict(os.environ, SDL_VIDEODRIVER="dummy")
    env.pop("DISPLAY", None)
    outcomes: list[str] = []
    for attempt in range(TRIES):
        ready_before = _ready_events(path)
        stop = threading.Event()
        editor = threading.Thread(target=_editor, args=(path, stop, random.Random(attempt)))
        proc = subprocess.Popen(
            [sys.executable, "-m", "firmware", "run", "--headless", "--auto-play",
             "--seats", "2", "--rounds", "1", "--pace", "0.01", "--quiet",
             "--journal", str(path)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env,
            start_new_session=True)
        editor.start()
        deadline = time.monotonic() + 60
        while (proc.poll() is None and time.monotonic() < deadline
               and _ready_events(path) <= ready_before):
            time.sleep(0.01)
        stop.set()  # the start is over: the table ready, or refused
        editor.join(10)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            _, err = proc.communicate()
        outcomes.append(f"exit {proc.returncode}: {err.strip().splitlines()[-1:]}")
        grants = _grants_of_seat_1(path)
        assert grants == 1, (f"try {attempt + 1}: seat 1 granted {grants} times: a start "
                             f"read an edit it never proved; {outcomes}")
