"""Local control of a running simulator from another process (the bench, a shell).

``etg shoe sim --control PATH`` listens on a Unix domain socket (mode 0600: local user
only, never the network). The protocol is one line per command, one line per reply:
``ok``, ``ok <json>`` or ``error: <why>``. ``etg shoe ctl --control PATH COMMAND...`` and
:func:`control` are its clients. Commands (see docs/shoe.md):

    status | received | cards C... | append C... | fault KIND [ARG] | frame BODY
    raw HEX | pace SECONDS | cut CARDS | clear | stop | help
"""

from __future__ import annotations

import json
import threading
from typing import Any

from drivers.errors import DeviceError
from drivers.shoe.framing import frame_text
from drivers.shoe.simulator import ShoeSimulator
from etgcore.line_server import LineServer, request_line

HELP = ("commands: status | received | cards C... | append C... | fault KIND [ARG] | "
        "frame BODY | raw HEX | pace SECONDS | cut CARDS | clear | stop | help")


def handle(sim: ShoeSimulator, line: str) -> str:
    """Carry out one command line; the reply line (without newline). Raises only
    :class:`StopRequested`, for the server to carry out once it has answered."""
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
        return [frame_text(f) for f in sim.received()]
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
        raise StopRequested
    if cmd == "help":
        return HELP
    raise ValueError(f"unknown command {cmd!r}; {HELP}")


class StopRequested(DeviceError):
    """The ``stop`` command: carried out by the server once it has answered."""


class ControlServer(LineServer):
    """The simulator's control socket: the core's local line server (mode 0600, bounded,
    ready when the path appears, a file that is not a socket never replaced)."""

    name = "shoe-sim-control"

    def __init__(self, sim: ShoeSimulator, path: str) -> None:
        super().__init__(path)
        self.sim = sim
        #: a ``stop`` answered, to carry out once its reply is sent
        self._stop_after_reply = False

    def start(self) -> ControlServer:
        super().start()
        return self

    def answer(self, line: str) -> str:
        try:
            return handle(self.sim, line)
        except StopRequested:
            self._stop_after_reply = True
            return "ok"

    def replied(self) -> None:
        """``stop`` stops the simulator only once its ``ok`` is sent: stopping it wakes the
        main loop, which closes this server, maybe before the reply was written."""
        if self._stop_after_reply:
            self._stop_after_reply = False
            threading.Thread(target=self.sim.stop, daemon=True).start()


def accepted(reply: str) -> bool:
    """Whether a reply line says the command was carried out: the protocol's status is
    its first word (``ok`` or ``error:``), read here and nowhere else."""
    return reply.split(maxsplit=1)[:1] == ["ok"]


def control(path: str, line: str, timeout: float = 5.0) -> str:
    """Send one command to a simulator's control socket; its reply line."""
    return request_line(path, line, timeout).strip()
