"""The leaf core's local line server (etgcore.line_server), below its JSON and text users.

The table's channels and the shoe simulator's control are tested through their own
protocols (tests/table/test_table_money.py, tests/shoe/test_shoe_cli.py); these check
what the core itself promises: one reply line per request line, the refusal line for
what cannot be answered, a 0600 socket, and a stop that ends the accepting thread.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
from pathlib import Path

import pytest
from waiting import wait_for

from etgcore.line_server import MAX_LINE, LineServer, request_line


class Echo(LineServer):
    def answer(self, line: str) -> str:
        if line == "boom":
            raise RuntimeError("a bug in a handler")
        return line.upper()


def test_one_reply_line_per_request_and_refusals(tmp_path: Path) -> None:
    path = tmp_path / "echo.sock"
    server = Echo(path).start()
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert request_line(path, "hello") == "HELLO"
        assert request_line(path, "boom") == "error: RuntimeError: a bug in a handler"
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(30)
            s.connect(str(path))
            s.sendall(b"\xff\nx" + b"y" * (MAX_LINE + 1))
            got = b""
            while got.count(b"\n") < 2:
                chunk = s.recv(4096)
                assert chunk, got
                got += chunk
        first, second = got.decode().splitlines()[:2]
        assert "UTF-8" in first and "longer than" in second
    finally:
        server.stop()
    assert not path.exists()


def test_stop_ends_the_accepting_thread_and_refuses_to_replace_a_file(tmp_path: Path) -> None:
    path = tmp_path / "echo.sock"
    server = Echo(path).start()
    assert request_line(path, "a") == "A"
    thread = server._thread
    wait_for("the accepting thread to block in accept", lambda: _asleep_in_the_kernel(thread))
    server.stop()
    # the thread asleep in accept is woken by stop, not left behind
    assert not thread.is_alive()
    keep = tmp_path / "keep"
    keep.write_text("precious")
    with pytest.raises(FileExistsError):
        Echo(keep)
    assert keep.read_text() == "precious"


def _asleep_in_the_kernel(thread: threading.Thread) -> bool:
    """The thread sleeps in a system call (accept), not between two (Linux /proc)."""
    task = Path(f"/proc/self/task/{thread.native_id}")
    state = (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
    return state == "S" and (task / "wchan").read_text() not in ("", "0")


@pytest.mark.parametrize("name_len", [1, 20])
def test_a_path_near_the_socket_limit(tmp_path: Path, name_len: int) -> None:
    """A socket path of 107 bytes (sun_path's limit) is served: the server binds under a
    temporary name that fits, even beside a one-letter final name."""
    room = 107 - len(str(tmp_path)) - 1 - name_len
    assert room > 1, "the test's directory is already too deep"
    deep = tmp_path / ("d" * (room - 1))
    deep.mkdir()
    path = deep / ("e" * name_len)
    assert len(str(path).encode()) == 107
    server = Echo(path).start()
    try:
        assert request_line(path, "near the limit") == "NEAR THE LIMIT"
        assert sorted(p.name for p in deep.iterdir()) == [path.name]  # no temporary left
    finally:
        server.stop()


def test_the_socket_appears_only_once_it_listens(tmp_path: Path, monkeypatch) -> None:
    """Whoever waits for the socket file and connects at once is never refused, for a
    short final name too (it used to be bound in place, so the file existed a moment
    before the socket listened: a slow machine saw "connection refused")."""
    import etgcore.line_server as ls

    path = tmp_path / "s.ctl"
    seen: list[bool] = []
    real_listen = socket.socket.listen

    def listen(sock: socket.socket, backlog: int) -> None:
        seen.append(os.path.lexists(path))  # the final name, at the moment of listen
        real_listen(sock, backlog)

    monkeypatch.setattr(ls.socket.socket, "listen", listen)
    server = Echo(path).start()
    try:
        assert seen == [False]
        assert request_line(path, "hi") == "HI"
        assert [p.name for p in tmp_path.iterdir()] == [path.name]
    finally:
        server.stop()
