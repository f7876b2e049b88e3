"""Shared rig for the panel tests: a sim panel on a manual clock, fresh for each test."""

from __future__ import annotations

from dataclasses import dataclass

from drivers.panel import MatrixPanel, PanelReport, open_panel
from drivers.panel.clock import ManualClock
from drivers.panel.sim_pins import SimPins
from firmware.config import load_config

PERIOD_S = 0.005  # the default panel.scan_period_ms


@dataclass
class Rig:
    panel: MatrixPanel
    sim: SimPins
    clock: ManualClock

    def run(self, seconds: float) -> list[PanelReport]:
        """Scan for ``seconds`` of simulated time; the events delivered meanwhile."""
        self.panel.run_for(seconds)
        return self.drain()

    def drain(self) -> list[PanelReport]:
        out: list[PanelReport] = []
        while (ev := self.panel.get_event(timeout=0)) is not None:
            out.append(ev)
        return out

    def scan(self) -> list[PanelReport]:
        """Exactly one scan pass, then the clock moves on one period."""
        events = self.panel.step()
        self.drain()
        self.clock.sleep(PERIOD_S)
        return events


def make_rig(*overrides: str, record: int = 0) -> Rig:
    cfg = load_config(None, list(overrides))
    clock = ManualClock()
    panel = open_panel(cfg.panel, cfg.table.seats, "sim", clock=clock.now, sleep=clock.sleep)
    assert isinstance(panel, MatrixPanel)
    if record:
        panel.sim.start_recording(record)
    panel.setup()
    return Rig(panel, panel.sim, clock)


def presses(events: list[PanelReport]) -> list[tuple[str, int | None, str]]:
    return [(ev.kind, ev.seat, ev.button) for ev in events]
