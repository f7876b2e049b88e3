"""A line server on a local Unix socket, and its one-request client: one line in, one out.

Every local channel of the program shares this (the table's bench control and attendant
channels speak JSON lines over it, the simulated shoe's control channel plain text):

- the socket is local only (never a network port) and created with mode 0600, so only
  the program's own user on this machine can connect;
- it is bound under a temporary name and renamed into place once it listens, so whoever
  sees the path appear can connect at once; a stale socket of an earlier run is
  replaced, any other file at the path is refused (``FileExistsError``), never replaced;
- each connection is served on its own thread; every request line gets exactly one
  reply line, and a request that cannot be handled gets the subclass's refusal line
  instead of a dead socket;
- bounded against a hostile or broken client: at most :data:`MAX_CONNECTIONS` at once
  (more are answered "too many" and closed), request lines of at most :data:`MAX_LINE`
  bytes, a connection idle for :data:`IDLE_TIMEOUT_S` closed, bytes that are not UTF-8
  refused;
- no polling: the accepting thread sleeps in ``accept`` until :meth:`LineServer.stop`
  closes the socket.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import socket
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from etgcore.errors import EtgError

#: the longest request line (bytes); a longer one is answered with a refusal and closed
MAX_LINE = 8192
#: connections served at once (one thread each); more are answered "too many" and closed
MAX_CONNECTIONS = 8
#: a connection silent this long is closed (a client that holds a slot and says nothing)
IDLE_TIMEOUT_S = 30.0
#: the longest socket path Linux binds (sun_path is 108 bytes with its NUL)
SUN_PATH_MAX = 107
_TEMPORARY = itertools.count()


class LineServer:
    """Subclasses implement :meth:`answer` (one request line in, one reply line out,
    without newlines) and may change :meth:`refusal` (the line sent for a request that
    cannot be answered)."""

    name = "line-server"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._sock = _listen(self.path)
        #: set by stop(): long-running answers (a bench wait) give up
        self.stopping = threading.Event()
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)

    def start(self) -> LineServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        with contextlib.suppress(OSError):
            # shutdown wakes the thread blocked in accept (close alone does not, on Linux)
            self._sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        if self._thread.is_alive():
            self._thread.join(1.0)

    def answer(self, line: str) -> str:
        raise NotImplementedError

    def refusal(self, why: str) -> str:
        """The reply line for a request that cannot be answered (``why`` says why)."""
        return f"error: {why}"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return  # closed by stop()
            if not self._slots.acquire(blocking=False):
                # every connection thread busy: answer and close, never queue unboundedly
                with conn, contextlib.suppress(OSError):
                    conn.settimeout(1.0)
                    conn.sendall(self._line(self.refusal(
                        f"too many connections; at most {MAX_CONNECTIONS} at once")))
                continue
            threading.Thread(target=self._client, args=(conn,), daemon=True).start()

    def _client(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(IDLE_TIMEOUT_S)
                for raw in self._lines(conn):
                    conn.sendall(self._line(self._reply(raw)))
                    self.replied()
        except (OSError, _LineTooLong):
            pass  # the client went away, idled, or sent an endless line (answered first)
        finally:
            self._slots.release()

    def replied(self) -> None:
        """Called after a reply was sent, in that client's thread: what must happen only
        once the client has its answer (a ``stop`` that would close this very server)."""

    def _reply(self, raw: bytes) -> str:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return self.refusal("a request is one line of UTF-8")
        try:
            return self.answer(text)
        except Exception as exc:  # the client gets the reason, never a dead socket
            return self.refusal(f"{type(exc).__name__}: {exc}")

    @staticmethod
    def _line(reply: str) -> bytes:
        return (reply.replace("\n", " ") + "\n").encode("utf-8")

    def _lines(self, conn: socket.socket) -> Iterator[bytes]:
        """The request lines of one connection, each at most MAX_LINE bytes."""
        buf = b""
        while True:
            chunk = conn.recv(4096)
            if not chunk:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if len(line) > MAX_LINE:
                    self._too_long(conn)
                yield line.rstrip(b"\r")
            if len(buf) > MAX_LINE:
                self._too_long(conn)

    def _too_long(self, conn: socket.socket) -> None:
        conn.sendall(self._line(self.refusal(
            f"request line longer than {MAX_LINE} bytes; connection closed")))
        raise _LineTooLong


class _LineTooLong(EtgError):
    """A request line over the limit: the connection is closed after the refusal."""


def socket_path_problem(path: str | Path, *, parent_will_exist: bool = False) -> str | None:
    """Why a server could not listen at ``path``, known before anything is started (a
    command checks its sockets with its other options), or None. ``parent_will_exist``:
    the directory is made by whoever starts first (a journal's own directory)."""
    p = Path(path)
    if len(os.fsencode(p)) > SUN_PATH_MAX:
        return (f"{p}: a Unix socket path holds at most {SUN_PATH_MAX} bytes, this one "
                f"{len(os.fsencode(p))}")
    if not parent_will_exist and not p.parent.is_dir():
        return f"{p}: no such directory {p.parent}"
    return None


def _temporary_name(path: Path) -> Path | None:
    """Where to bind before the rename: a name of this process beside ``path`` whose whole
    path fits sun_path (the final name may already be near the limit: a journal's path
    plus ".attendant.sock"). None only when nothing shorter than a one-letter final name
    would fit; that socket is bound in place and refuses connections for the moment
    between bind and listen."""
    n = next(_TEMPORARY)
    pid = os.getpid()
    for name in (f".{pid}.{n}.sock", f".{pid:x}{n:x}", f".{n:x}"):
        tmp = path.with_name(name)
        if len(os.fsencode(tmp)) <= SUN_PATH_MAX and tmp != path and not os.path.lexists(tmp):
            return tmp
    return None


def _listen(path: Path) -> socket.socket:
    """A listening socket at ``path`` (mode 0600), renamed into place once it listens."""
    with contextlib.suppress(FileNotFoundError):
        if not stat.S_ISSOCK(os.lstat(path).st_mode):
            raise FileExistsError(errno.EEXIST, "exists and is not a socket", str(path))
        path.unlink()  # a stale socket of a run that is gone
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tmp = _temporary_name(path)
    old = os.umask(0o177)
    try:
        sock.bind(str(tmp or path))
        sock.listen(MAX_CONNECTIONS * 2)
        if tmp is not None:
            os.rename(tmp, path)
    except OSError:
        sock.close()
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise
    finally:
        os.umask(old)
    return sock


def request_line(path: str | Path, line: str, timeout: float = 20.0) -> str:
    """Send one request line to a :class:`LineServer`; its reply line (without newline).
    Raises OSError if nobody answers."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(str(path))
        s.sendall(line.strip().encode("utf-8") + b"\n")
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    return buf.decode("utf-8").rstrip("\n")
