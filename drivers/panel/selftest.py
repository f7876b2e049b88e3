"""`etg panel test`: the technician's self-test of panels, lamps and console.

It walks every lamp (one at a time, then all together), then prints every press,
release and stuck key with its seat and button until Ctrl-C or ``--duration``. On
the ``sim`` backend it also reads each lamp back from the simulated registers and
plays a script of presses, so it runs unattended and checks itself (exit 1 if a lamp
or a scripted press did not come through).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from drivers.panel.buttons import BUTTONS, CONSOLE_BUTTONS, PanelReport
from drivers.panel.panel import MatrixPanel
from etgcore.errors import UserError

DEFAULT_HOLD_MS = 80
GAP_S = 0.06


@dataclass(frozen=True)
class ScriptStep:
    seat: int | None  # None: the console
    button: str
    hold_ms: int

    def label(self) -> str:
        return f"console {self.button}" if self.seat is None else f"seat {self.seat} {self.button}"


def parse_script(text: str, seats: int) -> list[ScriptStep]:
    """``"1:BET, 3:HIT+200, DEAL, RECALL+1500"``: [seat:]button[+hold ms], comma separated."""
    steps: list[ScriptStep] = []
    for raw in text.replace(";", ",").split(","):
        item = raw.strip()
        if not item:
            continue
        body, _, hold = item.partition("+")
        try:
            hold_ms = int(hold) if hold else DEFAULT_HOLD_MS
        except ValueError:
            raise UserError(f"--script {item!r}: hold time must be milliseconds") from None
        if hold_ms < 0:
            raise UserError(f"--script {item!r}: hold time must be 0 or more milliseconds")
        seat_txt, sep, button = body.partition(":")
        if not sep:
            name = seat_txt.strip().upper()
            if name not in CONSOLE_BUTTONS:
                raise UserError(
                    f"--script {item!r}: a console input is one of {' '.join(CONSOLE_BUTTONS)}; "
                    "a seat button is SEAT:BUTTON, e.g. 3:HIT"
                )
            steps.append(ScriptStep(None, name, hold_ms))
            continue
        name = button.strip().upper()
        if not seat_txt.strip().isdigit() or not 1 <= int(seat_txt) <= seats:
            raise UserError(f"--script {item!r}: seat must be 1..{seats}")
        if name not in BUTTONS:
            raise UserError(f"--script {item!r}: button must be one of {' '.join(BUTTONS)}")
        steps.append(ScriptStep(int(seat_txt), name, hold_ms))
    if not steps:
        raise UserError("--script: no press given, e.g. '1:BET, 3:HIT+200, DEAL'")
    return steps


def default_script(seats: int) -> str:
    """One press on every seat (a different button each) and every console input."""
    items = [f"{s}:{BUTTONS[(s - 1) % len(BUTTONS)]}" for s in range(1, seats + 1)]
    return ", ".join([*items, "DEAL", "SHUFFLE", "VOID", "RECALL+300"])


class SelfTest:
    """Runs the walk and the listening; ``out`` receives every printed line."""

    def __init__(self, panel: MatrixPanel, out: Callable[[str], None], lamp_step_s: float) -> None:
        self.panel = panel
        self.out = out
        self.lamp_step_s = lamp_step_s
        self.seen: list[PanelReport] = []
        self.failures = 0
        self._t0 = time.monotonic()
        self._lock = threading.Lock()
        #: Set when the scan stopped on a pin fault: nothing more can be heard.
        self.faulted = threading.Event()
        panel.on_report = self._on_report

    def _on_report(self, ev: PanelReport) -> None:
        with self._lock:
            self.seen.append(ev)
            if ev.kind == "fault":
                self.failures += 1
        extra = f" ({ev.detail})" if ev.detail else ""
        self.out(f"{time.monotonic() - self._t0:8.3f}  {ev.kind:<7} {ev.where()}{extra}")
        if ev.kind == "fault":
            self.faulted.set()

    def walk_lamps(self) -> None:
        p = self.panel
        simulated = p.backend == "sim"
        self.out(f"lamp walk: {p.seats} seat(s) x {len(BUTTONS)} lamps")
        for seat in range(1, p.seats + 1):
            for button in BUTTONS:
                p.set_lamps({seat: {button}})
                verdict = ""
                if simulated:
                    ok = p.sim.lamps() == {seat: frozenset({button})}
                    verdict = "  ok" if ok else f"  MISMATCH: registers show {p.sim.lamps()}"
                    self.failures += not ok
                self.out(f"lamp  seat {seat} {button}{verdict}")
                time.sleep(self.lamp_step_s)
        p.set_lamps({seat: set(BUTTONS) for seat in range(1, p.seats + 1)})
        self.out("lamp  all on")
        time.sleep(self.lamp_step_s * 4)
        p.set_lamps({})
        self.out("lamp  all off")

    def play(self, steps: list[ScriptStep]) -> None:
        """Press and release each scripted switch on the simulator, then check."""
        sim = self.panel.sim
        for step in steps:
            self.out(f"script: press {step.label()} for {step.hold_ms} ms")
            if step.seat is None:
                sim.press_console(step.button)
                time.sleep(step.hold_ms / 1000)
                sim.release_console(step.button)
            else:
                sim.press(step.seat, step.button)
                time.sleep(step.hold_ms / 1000)
                sim.release(step.seat, step.button)
            time.sleep(GAP_S)
        time.sleep(0.1)
        with self._lock:
            got = [(ev.kind, ev.seat, ev.button) for ev in self.seen]
        for step in steps:
            for kind in ("press", "release"):
                if (kind, step.seat, step.button) not in got:
                    self.failures += 1
                    self.out(f"MISSING: {kind} of {step.label()}")

    def summary(self) -> str:
        with self._lock:
            kinds = [ev.kind for ev in self.seen]
        count = {k: kinds.count(k) for k in ("press", "release", "stuck", "fault")}
        verdict = "PASS" if self.failures == 0 else f"FAIL ({self.failures} problem(s))"
        faults = f", {count['fault']} scan fault(s)" if count["fault"] else ""
        return (
            f"self-test {verdict}: {count['press']} press(es), {count['release']} release(s), "
            f"{count['stuck']} stuck{faults}, {self.panel.scans} scans"
        )
