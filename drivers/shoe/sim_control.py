"""Local control of a running simulator from another process (the bench, a shell).

``etg shoe sim --control PATH`` listens on a Unix domain socket (mode 0600: local user
only, never the network). The protocol is one line per command, one line per reply:
``ok``, ``ok <json>`` or ``error: <why>``. ``etg shoe ctl --control PATH COMMAND...`` and
:func:`control` are its clients. Commands (see docs/shoe.md):

    status | received | cards C... | append C... | fault KIND [ARG] | frame BODY
    raw HEX | pace SECONDS | cut CARDS | clear | stop | help
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
import stat
import threading
from typing import Any

from drivers.shoe.simulator import ShoeSimulator

HELP = ("commands: status | received | cards C... | append C... | fault KIND [ARG] | "
        "frame BODY | raw HEX | pace SECONDS | cut CARDS | clear | stop | help")


def handle(sim: ShoeSimulator, line: str) -> str:
    """Carry out one command line; the reply line (without newline). Never raises."""
    words = line.strip().split()
    if not words:
        return "error: empty command; " + HELP
    cmd, args = words[0].lower(), words[1:]
    try:
        result = _dispatch(sim, cmd, args)
    except (ValueError, IndexError) as exc:
        return f"error: {exc}"
    return "ok" if result is None else "ok " + json.dumps(result, separators=(",", ":"))


def _dispatch(sim: ShoeSimulator, cmd: str, args: list[str]) -> Any:
    if cmd == "status":
        return sim.status()
    if cmd == "received":
        return [str(f) for f in sim.received()]
    if cmd in ("cards", "append"):
        sim.load_cards([a.upper() for a in args], append=cmd == "append")
        return None
    if cmd == "fault":
        if not args:
            raise ValueError("fault needs a kind, e.g. fault misread")
        sim.inject(args[0], float(args[1]) if len(args) > 1 else None)
        return None
    if cmd == "frame":
        if len(args) != 1:
            raise ValueError("frame needs one body without spaces, e.g. frame ERR,MISREAD")
        sim.send_frame(args[0])
        return None
    if cmd == "raw":
        sim.send_raw(bytes.fromhex("".join(args)))
        return None
    if cmd == "pace":
        sim.set_pace(float(args[0]))
        return None
    if cmd == "cut":
        sim.set_cut_after(int(args[0]))
        return None
    if cmd == "clear":
        sim.clear_fault()
        return None
    if cmd == "stop":
        threading.Thread(target=sim.stop, daemon=True).start()
        return None
    if cmd == "help":
        return HELP
    raise ValueError(f"unknown command {cmd!r}; {HELP}")


class ControlServer:
    """The Unix-socket listener; one thread, one client at a time is plenty for a bench."""

    def __init__(self, sim: ShoeSimulator, path: str) -> None:
        self.sim = sim
        self.path = path
        # Replace a stale socket of an earlier run, never a file someone keeps there.
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISSOCK(os.lstat(path).st_mode):
                raise FileExistsError(errno.EEXIST, "exists and is not a socket", path)
            os.unlink(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # Bound and listening under a temporary name, then renamed: whoever sees PATH
        # appear can connect at once (a bench waiting for the file raced listen()).
        tmp = f"{path}.{os.getpid()}.tmp"
        old = os.umask(0o177)
        try:
            self.sock.bind(tmp)
            self.sock.listen(4)
            os.rename(tmp, path)
        except OSError:
            self.sock.close()
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        finally:
            os.umask(old)
        self.sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="shoe-sim-control",
                                        daemon=True)

    def start(self) -> ControlServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(1.0)
        self.sock.close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn, conn.makefile("rw", encoding="utf-8", newline="\n") as f:
                conn.settimeout(30)
                with contextlib.suppress(OSError):
                    for line in f:
                        f.write(handle(self.sim, line) + "\n")
                        f.flush()


def control(path: str, line: str, timeout: float = 5.0) -> str:
    """Send one command to a simulator's control socket; its reply line."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(line.strip().encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply.decode().strip()
