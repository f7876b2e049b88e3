"""A floor on localhost for the tests: generated certificates, a real Mosquitto on a free
port with the generated configuration, the floor service (``etg floor serve``) and real
``etg run`` tables, each a process the test can stop, kill -9 and restart."""

from __future__ import annotations

import contextlib
import http.cookiejar
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from waiting import DEADLINE_S, stop_process, wait_for

from firmware.cli.floor import table_settings
from firmware.floor.auth import add_staff
from firmware.floor.broker import start_broker
from firmware.floor.certs import make_floor_certs
from firmware.floor.db import Database
from firmware.journal.messages import public_round
from firmware.journal.meters import summarize

STAFF, PASSWORD = "pit", "pit-boss-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def etg(*args: str) -> list[str]:
    return [sys.executable, "-m", "firmware", *args]


class FloorRig:
    def __init__(self, root: Path, tables: list[str], db_url: str | None = None) -> None:
        self.root = root
        self.dir = root / "floor"
        self.tables = tables
        make_floor_certs(self.dir, tables)
        self.broker_port = free_port()
        self.http_port = free_port()
        self.db_url = db_url or str(self.dir / "floor.sqlite")
        self.broker: subprocess.Popen[bytes] | None = None
        #: ACL lines of the test's own identities (a tester that may write commands)
        self.extra_acl = ""
        self.floor: subprocess.Popen[bytes] | None = None
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.env = dict(os.environ)
        #: where the tables run (their program's tree comes first on their path)
        self.table_cwd: Path | None = None
        db = Database(self.db_url)
        add_staff(db, STAFF, PASSWORD)
        db.close()
        self.cookies = http.cookiejar.CookieJar()
        self.http = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    # -- processes ----------------------------------------------------------------------

    def _log(self, name: str) -> Any:
        return open(self.root / f"{name}.log", "ab")

    def start_broker(self) -> None:
        with self._log("broker") as log:
            self.broker = start_broker(self.dir, self.broker_port, log=log,
                                       extra_acl=self.extra_acl, log_denied=True)
        wait_for("the broker's port", lambda: _port_open(self.broker_port))

    def stop_broker(self) -> None:
        assert self.broker is not None
        stop_process(self.broker)
        self.broker = None

    def start_floor(self, *extra: str) -> None:
        log = self.root / "floor.log"
        start = log.read_text().count("connected to the broker") if log.exists() else 0
        self.floor = subprocess.Popen(
            etg("floor", "serve", "--dir", str(self.dir), "--db", self.db_url,
                "--broker", f"127.0.0.1:{self.broker_port}",
                "--http", f"127.0.0.1:{self.http_port}", *extra),
            stdout=self._log("floor"), stderr=subprocess.STDOUT, env=self.env)
        wait_for("the pit view's port", lambda: _port_open(self.http_port))
        if self.broker is not None:  # subscribed: what tables publish from now on arrives
            wait_for("the floor service on the broker", lambda: self.log_text("floor").count(
                "connected to the broker") > start)

    def stop_floor(self) -> None:
        assert self.floor is not None
        stop_process(self.floor)
        self.floor = None

    def journal(self, tid: str) -> Path:
        return self.root / f"{tid}.sqlite"

    def control(self, tid: str) -> str:
        return str(self.root / f"{tid}.ctl")

    def start_table(self, tid: str, *extra: str, pace: float = 0.02,
                    auto_play: bool = True) -> None:
        sets = [f"table.table_id={tid}", f"journal.path={self.journal(tid)}",
                f"shoe.sim_pace_s={pace}", "table.seats=2",
                *(f"floor.{k}={v}" for k, v in table_settings(
                    self.dir, tid, f"127.0.0.1:{self.broker_port}").items())]
        args = [a for s in sets for a in ("--set", s)]
        self.procs[tid] = subprocess.Popen(
            etg(*args, "run", *(["--auto-play"] if auto_play else []), "--headless",
                "--quiet", "--control", self.control(tid), *extra),
            stdout=self._log(tid), stderr=subprocess.STDOUT, env=self.env,
            # its shoe simulator in its group, to be stopped too
            start_new_session=True, cwd=self.table_cwd)

    def stop_table(self, tid: str, sig: int = signal.SIGTERM) -> None:
        """``sig`` to the table; then whatever it left of its group (a shoe simulator
        whose table was killed does not always stop by itself) is killed."""
        p = self.procs.pop(tid)
        try:
            stop_process(p, sig)
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(p.pid, signal.SIGKILL)

    def close(self) -> None:
        for tid in list(self.procs):
            with contextlib.suppress(Exception):
                self.stop_table(tid, signal.SIGKILL)
        for p in (self.floor, self.broker):
            if p is not None:
                stop_process(p, signal.SIGKILL)

    # -- the pit view over HTTP ---------------------------------------------------------

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.http_port}{path}"

    def log_in(self) -> None:
        data = urllib.parse.urlencode({"name": STAFF, "password": PASSWORD}).encode()
        self.http.open(self.url("/login"), data, timeout=DEADLINE_S).read()

    def post(self, path: str, **form: str) -> None:
        """A pit action as a logged-in page sends it (with the session's CSRF token)."""
        html = self.http.open(self.url("/"), timeout=DEADLINE_S).read().decode()
        found = re.search(r"name=.csrf. value=.([^'\"]+)", html)
        assert found, "no CSRF token on the page"
        data = urllib.parse.urlencode({"csrf": found.group(1), **form}).encode()
        self.http.open(self.url(path), data, timeout=DEADLINE_S).read()

    def tiles(self) -> dict[str, dict[str, Any]]:
        with self.http.open(self.url("/api/tables"), timeout=DEADLINE_S) as r:
            return {t["table"]: t for t in json.loads(r.read())}

    def log_text(self, name: str) -> str:
        return (self.root / f"{name}.log").read_text(errors="replace")

    # -- what the floor and the tables hold ---------------------------------------------

    def floor_records(self, tid: str) -> dict[str, Any]:
        db = sqlite3.connect(self.db_url)
        try:
            events = [(s, c, json.loads(b)) for s, c, b in db.execute(
                "SELECT seq, code, body FROM floor_events WHERE table_id = ? ORDER BY seq",
                (tid,))]
            rounds = [(s, json.loads(r)) for s, r in db.execute(
                "SELECT seq, record FROM floor_rounds WHERE table_id = ? ORDER BY seq",
                (tid,))]
            row = db.execute("SELECT meters FROM floor_tables WHERE table_id = ?",
                             (tid,)).fetchone()
        finally:
            db.close()
        return {"events": events, "rounds": rounds,
                "meters": json.loads(row[0]) if row and row[0] else None}

    def journal_records(self, tid: str) -> dict[str, Any]:
        db = sqlite3.connect(f"file:{self.journal(tid)}?mode=ro", uri=True)
        try:
            events = [(s, c, json.loads(b)) for s, c, b in db.execute(
                "SELECT seq, code, body FROM records WHERE kind = 'event' ORDER BY seq")]
            rounds = [(s, public_round(json.loads(b))) for s, b in db.execute(
                "SELECT seq, body FROM records WHERE kind = 'round' ORDER BY seq")]
            meters = {(n, s, w): v for n, s, w, v in db.execute(
                "SELECT name, seat, wager, value FROM meters")}
        finally:
            db.close()
        return {"events": events, "rounds": rounds, "meters": summarize(meters)}

    def outbox_left(self, tid: str) -> int:
        db = sqlite3.connect(f"file:{self.journal(tid)}?mode=ro", uri=True)
        try:
            return int(db.execute("SELECT COUNT(*) FROM floor_outbox").fetchone()[0])
        finally:
            db.close()


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def floor_rig(root: Path, tables: list[str], db_url: str | None = None) -> Iterator[FloorRig]:
    rig = FloorRig(root, tables, db_url)
    try:
        yield rig
    finally:
        rig.close()
