"""The devices and local channels a running table starts, and the order they stop in.

The shoe driver (on the configured port, or a simulated shoe on a fresh pseudo-terminal),
the panel backend, the automatic players of the bench, the attendant channel, the floor
link and the bench control channel. :class:`Devices` records each as soon as it runs, so
a failure half-way through the start stops exactly what started.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware.engine.rules import Rules
from firmware.table.happenings import PanelHappening, ShoeHappening

if TYPE_CHECKING:
    from firmware.table.service.run_options import PoweredUp, RunOptions
    from firmware.table.service.simulated_shoe import SimulatedShoe
    from firmware.table.settings import TableSetup


@dataclass
class Devices:
    """The started devices and channels; :meth:`stop` ends them in a safe order."""

    sim_shoe: SimulatedShoe | None = None
    driver: Any = None
    panel: Any = None
    autoplay: Any = None
    attendant: Any = None
    control_server: Any = None
    sas: Any = None

    def stop(self) -> None:
        if self.sas is not None:
            self.sas.stop()
        if self.autoplay is not None:
            self.autoplay.stop()
        if self.control_server is not None:
            self.control_server.stop()
        if self.attendant is not None:
            self.attendant.stop()
        if self.driver is not None:
            self.driver.lock()
            time.sleep(0.05)
            self.driver.stop()
        if self.panel is not None:
            self.panel.stop()
        if self.sim_shoe is not None:
            self.sim_shoe.stop()


def start_devices(cfg: TableSetup, opts: RunOptions, rules: Rules, up: PoweredUp,
                   dev: Devices) -> None:
    """The shoe (or its simulator), the panels, the players, the local channels; each
    goes into ``dev`` as soon as it runs, so a failure half-way stops what started."""
    from drivers.panel import open_panel
    from drivers.shoe.driver import ShoeDriver
    from firmware.table.requests.attendant_socket import AttendantServer

    ctl = up.ctl
    shoe_url = cfg.shoe.port
    shoe_control = None
    if shoe_url == "sim":
        from firmware.table.service.simulated_shoe import SimulatedShoe  # a bench's shoe only

        if opts.control:
            shoe_control = opts.control + ".shoe"
        dev.sim_shoe = SimulatedShoe(rules, cfg, opts.pace, shoe_control)
        shoe_url = dev.sim_shoe.path
    dev.driver = ShoeDriver(shoe_url, on_report=lambda e: ctl.put(ShoeHappening(e)))
    dev.driver.start()
    ctl.shoe = dev.driver
    backend = "sim" if opts.auto_play else cfg.panel.backend
    dev.panel = open_panel(
        cfg.panel, cfg.table.seats, backend=backend,
        on_report=lambda e: ctl.put(PanelHappening(e.kind, e.button, e.seat, e.detail)),
    )
    dev.panel.start()
    ctl.panel = dev.panel
    up.bridge.attach_panel(dev.panel)
    if opts.auto_play:
        from firmware.table.service.autoplay import AutoPlay

        dev.autoplay = AutoPlay(dev.panel.sim, rules, list(range(1, opts.seats + 1)),
                                strategy_for=opts.strategy_for).start()
        up.bridge.autoplay = dev.autoplay
    dev.attendant = AttendantServer(Path(cfg.journal.path), ctl).start()
    from drivers.sas.settings import enabled

    if enabled(cfg.sas):
        from firmware.table.sas.service import start_sas

        dev.sas = start_sas(cfg.sas, ctl)
    if up.floor_link is not None:
        up.floor_link.start()
    if opts.control:
        from firmware.table.requests.bench_socket import ControlServer

        dev.control_server = ControlServer(opts.control, ctl, shoe_control).start()
