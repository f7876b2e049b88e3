"""The bench control channel: a local Unix socket into a table running in bench mode.

Only ``etg run --control PATH`` opens it, and only in bench mode (production refuses);
the socket file is created with mode 0600 inside a directory of the bench's choosing, so
it is reachable by the bench user on this machine only — never a network port.

Protocol: one JSON object per line each way. Requests (``cmd``):

- ``status``: the public view, rounds recorded, the controller's failure (if any)
- ``press`` ``{"seat": 1, "button": "HIT", "hold_ms": 45}``: a switch on the simulated
  matrix (``seat`` null for the console); ``release`` likewise; ``tap`` presses and
  releases
- ``force-draw`` ``{"values": {"bingo_target": 21, "bingo_multiplier": 10}}``: the next
  RNG draw (bench power)
- ``credits-in`` / ``credits-out`` ``{"seat": 1, "cents": 1000}``
- ``shoe`` ``{"line": "frame ERR,MISREAD"}``: a command for the shoe simulator's own
  control socket (docs/shoe.md)
- ``wait`` ``{"handled": {"shoe:card": 12, "panel:release": 40}, "timeout_s": 5}``: returns
  the ``status`` reply once the controller has handled at least that many happenings of
  each kind (``shoe:<event>``, ``panel:<press|release|stuck|fault>``,
  ``input:accepted``, ``input:refused``, and per input source e.g.
  ``input:accepted:panel``; ``status`` reports the counts under
  ``handled``), with ``"waited": false`` if the time ran out first. The bench waits on
  what the table did, never on a guessed delay.

Replies: ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``.
"""

from __future__ import annotations

import json
import logging
import queue
import time
from typing import Any

from firmware.table.controller import Controller, RequestHappening
from firmware.table.requests.json_lines import JsonLineServer

log = logging.getLogger("etg.table.control")


class ControlServer(JsonLineServer):
    name = "bench-control"

    def __init__(self, path: str, ctl: Controller, shoe_control: str | None) -> None:
        super().__init__(path)
        self.ctl = ctl
        self.shoe_control = shoe_control

    def handle(self, req: dict[str, Any]) -> dict[str, Any]:
        cmd = req.get("cmd")
        ctl = self.ctl
        if cmd == "status":
            reply: queue.Queue[tuple[bool, str]] = queue.Queue()
            ctl.put(RequestHappening("status", {}, reply))
            ok, msg = reply.get(timeout=10)
            return {"ok": ok, **json.loads(msg)}
        if cmd == "wait":
            return self._wait(req)
        if cmd in ("press", "release", "tap"):
            sim = getattr(ctl.panel, "sim", None)
            if sim is None:
                return {"ok": False, "error": "the panel is not the simulated matrix"}
            seat, button = req.get("seat"), str(req["button"])
            hold = float(req.get("hold_ms", 45)) / 1000
            if cmd in ("press", "tap"):
                (sim.press_console(button) if seat is None else sim.press(int(seat), button))
            if cmd == "tap":
                time.sleep(hold)
            if cmd in ("release", "tap"):
                (sim.release_console(button) if seat is None else
                 sim.release(int(seat), button))
            if cmd == "tap":
                time.sleep(hold)
            return {"ok": True}
        if cmd in ("force-draw", "credits-in", "credits-out", "fault"):
            reply = queue.Queue()
            args = {k: v for k, v in req.items() if k != "cmd"}
            ctl.put(RequestHappening(str(cmd), args, reply))
            ok, msg = reply.get(timeout=10)
            return {"ok": ok, "message": msg} if ok else {"ok": False, "error": msg}
        if cmd == "shoe":
            if not self.shoe_control:
                return {"ok": False, "error": "no simulated shoe behind this table"}
            from drivers.shoe.sim_control import accepted, control

            answer = control(self.shoe_control, str(req["line"]))
            return {"ok": accepted(answer), "reply": answer}
        return {"ok": False, "error": f"unknown cmd {cmd!r}"}


    def _wait(self, req: dict[str, Any]) -> dict[str, Any]:
        wanted = {str(k): int(v) for k, v in dict(req.get("handled") or {}).items()}
        deadline = time.monotonic() + float(req.get("timeout_s", 5.0))
        handled = self.ctl.handled  # read-only from this thread: one key at a time
        while True:
            done = all(handled.get(k, 0) >= n for k, n in wanted.items())
            if done or time.monotonic() >= deadline or self.stopping.is_set():
                break
            time.sleep(0.001)
        reply = self.handle({"cmd": "status"})
        reply["waited"] = done
        return reply
