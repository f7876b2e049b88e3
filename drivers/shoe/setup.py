"""The table's shoe from its configuration: the driver on ``shoe.port``, and with
``port = "sim"`` a simulated shoe on a private pseudo-terminal first.

The table service calls :func:`open_shoe` once; production and bench differ only by the
configuration (guide principle 3), never by code asking where it runs.
"""

from __future__ import annotations

from typing import Any

from drivers.shoe.driver import EventSink, ShoeDriver
from drivers.shoe.sim_machine import SimSettings
from drivers.shoe.simulator import ShoeSimulator


def sim_settings_from_config(cfg: Any) -> SimSettings:
    """Simulator settings from ``[shoe]`` and ``[rules]`` (decks, Spanish 21)."""
    return SimSettings(decks=int(cfg.rules.get("decks", 6)),
                       spanish=cfg.table.variant == "spanish21",
                       pace_s=cfg.shoe.sim_pace_s, penetration=cfg.shoe.sim_penetration)


def open_shoe(cfg: Any, on_event: EventSink | None = None
              ) -> tuple[ShoeDriver, ShoeSimulator | None]:
    """A started driver for the configured shoe, and the simulator if ``port = "sim"``.

    Stop both with ``driver.stop()`` then ``sim.stop()``.
    """
    sim: ShoeSimulator | None = None
    url = cfg.shoe.port
    if url == "sim":
        sim = ShoeSimulator.on_pty(sim_settings_from_config(cfg)).start()
        url = sim.path
    return ShoeDriver(url, on_event).start(), sim
