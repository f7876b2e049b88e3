"""Money moves exactly once (issue 18, points 6, 7 and 8).

Point 6: a transfer carries a client-chosen id, applied at most once, and its fate can be
asked. Point 7: amounts are integers within the configured maxima on every entry point.
Point 8: one bad request never stops the table: an exception tilts the round (INTERNAL,
event 702) and the local socket servers bound lines, connections and bad bytes.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from table_helpers import FakePanel, FakeShoe
from table_process import running_table
from waiting import DEADLINE_S

from firmware.engine import load_rules
from firmware.journal import EventCode, Journal
from firmware.journal.meters import summarize
from firmware.table.controller import Controller, RequestHappening
from firmware.table.happenings import StopHappening
from firmware.table.recovery import open_table
from firmware.table.requests.attendant_socket import AttendantServer, socket_path
from firmware.table.requests.json_lines import MAX_CONNECTIONS, MAX_LINE, request
from firmware.table.requests.transfers import CreditLimits

REPO = Path(__file__).resolve().parents[2]


def make(tmp_path: Path, limits: CreditLimits | None = None) -> Controller:
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, load_rules("blackjack", {}), 2, True)
    return Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel(), limits=limits)


def test_point6_a_repeated_transfer_id_is_applied_once(tmp_path: Path) -> None:
    ctl = make(tmp_path)
    args = {"seat": 1, "cents": 500, "id": "t-1"}
    assert ctl.request("credits-in", args)[0]
    ok, msg = ctl.request("credits-in", args)
    assert ok and "already applied" in msg
    assert summarize(ctl.journal.meters())["credits_in"] == 500
    ok, msg = ctl.request("credits-in", {**args, "cents": 600})
    assert not ok and "already used" in msg
    # the id survives a restart: it is journaled with the transfer
    ctl.journal.close()
    again = make(tmp_path)
    assert again.request("credits-in", args)[1].endswith("not again)")
    assert summarize(again.journal.meters())["credits_in"] == 500
    assert again.transfers.status("t-1")["state"] == "applied"
    assert again.transfers.status("t-2")["state"] == "not-applied"


class SlowController:
    """A controller that takes its time: the attendant gives up waiting, the table applies
    the transfer later (what made a retry credit the seat twice)."""

    def __init__(self, ctl: Controller) -> None:
        self.ctl, self.transfers = ctl, ctl.transfers
        self.held: list[RequestHappening] = []

    def put(self, h: RequestHappening) -> None:
        self.held.append(h)

    def release(self) -> None:
        for h in self.held:
            self.ctl.handle(h)
        self.held.clear()


def test_point6_a_client_that_gave_up_asks_and_retries_safely(tmp_path: Path,
                                                              monkeypatch: Any) -> None:
    import firmware.table.requests.attendant_socket as att

    monkeypatch.setattr(att, "ANSWER_S", 0.2)
    ctl = make(tmp_path)
    slow = SlowController(ctl)
    with tempfile_dir() as d:
        server = AttendantServer(Path(d) / "j.sqlite", slow).start()  # type: ignore[arg-type]
        try:
            sock = socket_path(Path(d) / "j.sqlite")
            req = {"cmd": "credits-in", "seat": 2, "cents": 700, "id": "abc"}
            first = request(sock, req)
            assert not first["ok"] and first["pending"]
            assert request(sock, {"cmd": "transfer-status", "id": "abc"})["state"] == "pending"
            slow.release()  # the table applies it after all
            assert request(sock, {"cmd": "transfer-status", "id": "abc"})["state"] == "applied"
            threading.Thread(target=slow.release).start()
            retry = request(sock, req)
            deadline = time.monotonic() + DEADLINE_S
            while retry.get("pending") and time.monotonic() < deadline:
                slow.release()
                retry = request(sock, {"cmd": "transfer-status", "id": "abc"})
            assert not retry.get("pending"), retry
            assert request(sock, {"cmd": "credits-in", "seat": 2, "cents": 700})["ok"] is False
        finally:
            server.stop()
    slow.release()
    assert summarize(ctl.journal.meters())["credits_in"] == 700


def tempfile_dir() -> tempfile.TemporaryDirectory[str]:
    """A short directory: a Unix socket path holds at most 107 bytes."""
    return tempfile.TemporaryDirectory(prefix="etg-")


BAD_AMOUNTS: list[Any] = [1e19, 5e18, "100", True, 12.5, None, -5, 0, 10**19, [1]]


@pytest.mark.parametrize("cents", BAD_AMOUNTS)
def test_point7_amounts_are_strict_bounded_integers(tmp_path: Path, cents: Any) -> None:
    ctl = make(tmp_path)
    ok, why = ctl.request("credits-in", {"seat": 1, "cents": cents})
    assert not ok and "cents" in why
    assert summarize(ctl.journal.meters())["credits_in"] == 0
    assert ctl.failure is None


def test_point7_the_maxima_per_transfer_and_per_seat(tmp_path: Path) -> None:
    ctl = make(tmp_path, CreditLimits(per_transfer=1000, per_seat=1500))
    assert not ctl.request("credits-in", {"seat": 1, "cents": 1001})[0]
    assert ctl.request("credits-in", {"seat": 1, "cents": 1000})[0]
    ok, why = ctl.request("credits-in", {"seat": 1, "cents": 600})
    assert not ok and "max_seat_credits" in why
    assert not ctl.request("credits-in", {"seat": True, "cents": 5})[0]
    assert not ctl.request("credits-in", {"seat": 3, "cents": 5})[0]  # a 2-seat table
    m = summarize(ctl.journal.meters())
    assert m["credits_in"] == 1000 and isinstance(m["credits_in"], int)


@pytest.mark.parametrize("value", ["1e19", "-5", "+5", "1_000", " 5", "12.5", "0x10",
                                   "10000000000000000000"])
def test_point7_the_command_line_takes_digits_only(tmp_path: Path, value: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "firmware", "credits", "add", "--seat", "1", "--cents", value,
         "--journal", str(tmp_path / "j.sqlite")],
        capture_output=True, text=True, timeout=60, cwd=REPO)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "j.sqlite").exists() or summarize(
        Journal(tmp_path / "j.sqlite", readonly=True).meters())["credits_in"] == 0


def test_point7_a_huge_amount_on_the_attendant_socket_is_refused(tmp_path: Path) -> None:
    ctl = make(tmp_path)
    with tempfile_dir() as d:
        server = AttendantServer(Path(d) / "j.sqlite", ctl)
        server.start()
        worker = threading.Thread(target=ctl.run, kwargs={"until": server.stopping.is_set},
                                  daemon=True)
        worker.start()
        try:
            sock = Path(d) / "j.sqlite.attendant.sock"
            for raw in (b'{"cmd":"credits-in","seat":1,"cents":1e19,"id":"a"}',
                        b'{"cmd":"credits-in","seat":1,"cents":10000000000000000000,"id":"b"}'):
                with socket.socket(socket.AF_UNIX) as s:
                    s.connect(str(sock))
                    s.sendall(raw + b"\n")
                    reply = json.loads(s.makefile().readline())
                assert reply["ok"] is False and "cents" in reply["error"]
        finally:
            server.stop()
            ctl.put(StopHappening("test over"))
            worker.join(DEADLINE_S)
            assert not worker.is_alive(), "the controller did not stop"
    assert summarize(ctl.journal.meters())["credits_in"] == 0


def test_point8_an_exception_tilts_the_round_and_the_table_goes_on(tmp_path: Path,
                                                                   monkeypatch: Any) -> None:
    ctl = make(tmp_path)
    boom = RuntimeError("a bug in a command")

    def broken(name: str, args: Any) -> tuple[bool, str]:
        raise boom

    monkeypatch.setattr(ctl.requests, "run", broken)
    from queue import Queue

    reply: Queue[tuple[bool, str]] = Queue()
    ctl.handle(RequestHappening("status", {}, reply))
    ok, msg = reply.get(timeout=DEADLINE_S)
    assert not ok and "a bug in a command" in msg
    assert ctl.game.phase == "tilt" and ctl.game.tilt is not None
    assert ctl.game.tilt.code == "INTERNAL"
    events = [r for r in ctl.journal.records(kinds=["event"])
              if r.code == int(EventCode.INTERNAL_ERROR)]
    assert events and "RuntimeError: a bug in a command" in events[0].body["error"]
    monkeypatch.undo()
    assert ctl.request("credits-in", {"seat": 1, "cents": 5})[0]  # still taking requests


def _server(tmp: str) -> tuple[AttendantServer, Path]:
    journal = Journal(Path(tmp) / "j.sqlite")
    rec = open_table(journal, load_rules("blackjack", {}), 1, True)
    ctl = Controller(rec.game, journal)
    server = AttendantServer(Path(tmp) / "j.sqlite", ctl)
    server.start()
    return server, socket_path(Path(tmp) / "j.sqlite")


def _ask(sock: Path, raw: bytes) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(sock))  # blocking: waits while the listen queue is full
        s.settimeout(10)
        # refused at accept: answered and closed before we wrote
        with contextlib.suppress(BrokenPipeError):
            s.sendall(raw)
        line = s.makefile("rb").readline()
    return dict(json.loads(line))


def test_point8_bad_bytes_bad_json_and_long_lines_get_an_error_line() -> None:
    with tempfile_dir() as d:
        server, sock = _server(d)
        try:
            assert "UTF-8" in _ask(sock, b'{"cmd": "\xff\xfe"}\n')["error"]
            assert "not JSON" in _ask(sock, b'{"cmd": \n')["error"]
            assert "object" in _ask(sock, b"[1, 2]\n")["error"]
            assert "longer than" in _ask(sock, b"x" * (MAX_LINE + 10))["error"]
            assert "transfer-status" in _ask(sock, b'{"cmd": "nope"}\n')["error"]
        finally:
            server.stop()


def test_point8_connections_and_threads_are_bounded() -> None:
    with tempfile_dir() as d:
        server, sock = _server(d)
        held = []
        try:
            before = threading.active_count()
            for _ in range(MAX_CONNECTIONS):
                s = socket.socket(socket.AF_UNIX)
                s.connect(str(sock))
                held.append(s)
            extra = _ask(sock, b'{"cmd": "transfer-status", "id": "x"}\n')
            assert "too many connections" in extra["error"]
            assert threading.active_count() <= before + MAX_CONNECTIONS
        finally:
            for s in held:
                s.close()
            server.stop()


def test_point8_the_table_process_survives_hostile_requests(tmp_path: Path) -> None:
    """End to end: garbage on the attendant socket of a running table, then a real
    transfer still goes through."""
    with tempfile_dir() as d:
        j = Path(d) / "j.sqlite"
        with running_table(j) as proc:
            sock = socket_path(j)
            for raw in (b"\xff\n", b"{}\n", b'{"cmd":"credits-in","seat":"1","cents":1e19}\n',
                        b'{"cmd":"credits-in","seat":1,"cents":1e19,"id":"z"}\n'):
                assert _ask(sock, raw)["ok"] is False
            ok = _ask(sock, b'{"cmd":"credits-in","seat":1,"cents":5,"id":"good"}\n')
            assert ok["ok"], ok
            assert proc.poll() is None
