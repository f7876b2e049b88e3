"""The real table service (`etg run`) as its own process, seen from the bench.

:class:`ServiceProcess` writes a bench configuration into a private temporary directory
(fresh journal, panel ``sim``), starts ``python -m firmware run --headless --control
SOCKET``, and talks to it only through the bench control channel (a Unix socket in that
directory, mode 0600: docs/bench.md) and the journal file it writes. :class:`Control` is
a persistent client of that channel; :class:`JournalFile` reads the journal read-only,
as the attendant's `etg recall` and `etg meters` do, while the service keeps writing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from etgcore.child import dies_with_parent, own_python, signals_held
from etgcore.errors import UserError
from firmware.bench.errors import BenchError
from firmware.journal.meters import MeterKey

#: how long the service may take from exec to an answering control socket (loaded bench PC)
START_TIMEOUT_S = 60.0
#: how long one wait for the table to act may take before the bench calls it stuck
ACT_TIMEOUT_S = 20.0
class ServiceError(BenchError, UserError):
    """The service process died or stopped answering: the scenario fails with this."""


def toml_value(v: Any) -> str:
    """A TOML spelling of a configuration value (ints, floats, bools, strings, arrays,
    tables of those) — enough for ``[rules]`` overrides, no dependency needed."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a TOML basic string
    if isinstance(v, list | tuple):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}"
                                for k, x in v.items()) + " }"
    raise UserError(f"cannot write {v!r} into a table configuration")


def config_text(sections: Mapping[str, Mapping[str, Any]]) -> str:
    out: list[str] = []
    for name, keys in sections.items():
        out.append(f"[{name}]")
        out.extend(f"{k} = {toml_value(v)}" for k, v in keys.items())
        out.append("")
    return "\n".join(out)


class Control:
    """One persistent connection to a table's bench control socket (JSON lines)."""

    def __init__(self, path: str, timeout: float = ACT_TIMEOUT_S + 10) -> None:
        self.path = path
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._file: Any = None

    def _connect(self) -> None:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(self.timeout)
        try:
            s.connect(self.path)
        except OSError:
            s.close()
            raise
        self._sock = s
        self._file = s.makefile("rw", encoding="utf-8", newline="\n")

    def __call__(self, cmd: str, **args: Any) -> dict[str, Any]:
        """Send one request; the reply (``ok`` false replies are returned, not raised)."""
        if self._sock is None:
            self._connect()
        try:
            self._file.write(json.dumps({"cmd": cmd, **args}) + "\n")
            self._file.flush()
            line = self._file.readline()
        except OSError as exc:
            self.close()
            raise ServiceError(f"bench control channel: {cmd}: {exc}") from None
        if not line:
            self.close()
            raise ServiceError(f"bench control channel closed during {cmd}")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def close(self) -> None:
        with contextlib.suppress(OSError):
            if self._file is not None:
                self._file.close()
            if self._sock is not None:
                self._sock.close()
        self._sock = self._file = None


class JournalFile:
    """Read-only access to a journal the service is writing (SQLite WAL allows it)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            if not self.path.exists():
                raise ServiceError(f"{self.path}: the service wrote no journal")
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30,
                                       check_same_thread=False)
        return self._db

    def records(self, kind: str, since_seq: int = 0) -> list[dict[str, Any]]:
        rows = self._conn().execute(
            "SELECT seq, code, round_no, body FROM records WHERE kind = ? AND seq > ? "
            "ORDER BY seq", (kind, since_seq)).fetchall()
        return [{"seq": s, "code": c, "round": r, "body": json.loads(b)} for s, c, r, b in rows]

    def last_seq(self) -> int:
        row = self._conn().execute("SELECT MAX(seq) FROM records").fetchone()
        return int(row[0] or 0)

    def meters(self) -> dict[MeterKey, int]:
        rows = self._conn().execute("SELECT name, seat, wager, value FROM meters").fetchall()
        return {(n, s, w): v for n, s, w, v in rows}

    def seat_credits(self) -> dict[int, int]:
        """Each seat's ``credits`` meter (its balance at the last round boundary)."""
        return {s: v for (n, s, w), v in self.meters().items() if n == "credits" and s and not w}

    def close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None


class ServiceProcess:
    """``etg run`` in bench mode in a private directory; see the module docstring."""

    def __init__(self, sections: Mapping[str, Mapping[str, Any]], *, seats: int,
                 extra_args: tuple[str, ...] = (), workdir: str | None = None) -> None:
        self.dir = Path(workdir or tempfile.mkdtemp(prefix="etg-hil-"))
        self._own_dir = workdir is None
        self.journal_path = self.dir / "journal.sqlite"
        self.socket_path = str(self.dir / "control.sock")
        self.config_path = self.dir / "table.toml"
        base: dict[str, dict[str, Any]] = {
            "table": {"mode": "bench"},
            "display": {"enabled": False},
            "journal": {"path": str(self.journal_path)},
        }
        for name, keys in sections.items():
            base.setdefault(name, {}).update(keys)
        self.config_path.write_text(config_text(base), encoding="utf-8")
        self.seats = seats
        self.extra_args = extra_args
        self.proc: subprocess.Popen[bytes] | None = None
        self.control = Control(self.socket_path)
        self.journal = JournalFile(self.journal_path)
        self.starts = 0

    @property
    def log_path(self) -> Path:
        return self.dir / "service.log"

    def start(self) -> None:
        cmd = [*own_python("firmware"), "--config", str(self.config_path), "run",
               "--headless", "--quiet", "--seats", str(self.seats),
               "--control", self.socket_path, *self.extra_args]
        env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
                   PYGAME_HIDE_SUPPORT_PROMPT="1")
        env.pop("ETG_CONFIG", None)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)
        log = open(self.log_path, "ab")  # noqa: SIM115 - the child keeps it
        # The table dies with the bench (a bench killed mid-run would leave it holding a
        # pseudo-terminal); the signal follows the thread that started it, and the bench
        # starts its tables from its main thread.
        try:
            with signals_held():
                self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=subprocess.STDOUT, env=env,
                                             cwd=self.dir, start_new_session=True,
                                             preexec_fn=dies_with_parent)
        finally:
            log.close()
        self.starts += 1
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.proc.poll() is not None:
                raise ServiceError(f"etg run exited with {self.proc.returncode}: "
                                   f"{self.last_log_line()}")
            if os.path.exists(self.socket_path):
                try:
                    if self.control("status").get("ok"):
                        return
                except (OSError, ServiceError):
                    self.control.close()
            if time.monotonic() > deadline:
                self.stop()
                raise ServiceError(f"etg run did not answer on its control socket within "
                                   f"{START_TIMEOUT_S:.0f} s: {self.last_log_line()}")
            time.sleep(0.02)

    def last_log_line(self) -> str:
        try:
            lines = self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return "(no log)"
        lines = [x for x in lines if x.strip()]
        return lines[-1].strip() if lines else "(no output)"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        """Power failure: SIGKILL, nothing flushed, nothing said."""
        self.control.close()
        if self.proc is not None and self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # its own session: it and its children
            self.proc.wait(10)

    def stop(self, timeout: float = 10.0) -> None:
        """An orderly stop (SIGTERM), SIGKILL if it does not go."""
        self.control.close()
        self.journal.close()
        p = self.proc
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)

    def cleanup(self) -> None:
        self.stop()
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
