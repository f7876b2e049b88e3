"""Player button panels, lamps and dealer console (panel ICD), on GPIO or simulated.

Use :func:`open_panel` with the table configuration; see docs/panel.md. Importing
this package is cheap (no pygame, no RPi.GPIO) and registers the pin-map check with
the configuration loader.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from drivers.panel import pinmap as _pinmap  # registers the pin-map validator
from drivers.panel.buttons import BUTTONS, CONSOLE_BUTTONS, PanelEvent
from drivers.panel.gpio_pins import GpioPins
from drivers.panel.panel import EventSink, MatrixPanel, Panel
from drivers.panel.pins import Pins
from drivers.panel.sim_pins import SimPins
from firmware.config import PanelBackend, TableConfig
from firmware.errors import UserError

__all__ = [
    "BUTTONS", "CONSOLE_BUTTONS", "EventSink", "MatrixPanel", "Panel", "PanelEvent", "SimPins",
    "open_panel",
]


def open_panel(
    cfg: TableConfig,
    backend: PanelBackend | None = None,
    on_event: EventSink | None = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> Panel:
    """The panel of ``cfg`` (or of ``backend``), not yet started.

    ``gpio`` imports RPi.GPIO now (a clear :class:`UserError` if it cannot); ``sim``
    builds the electrical simulator (reach it as ``panel.sim``); ``keyboard`` returns a
    :class:`~drivers.panel.keyboard.KeyboardPanel` fed by the UI's key events.
    """
    _pinmap.check_pin_map(cfg)  # also when the config was loaded before this import
    name = backend or cfg.panel.backend
    seats = cfg.table.seats
    clock = clock or time.monotonic
    if name == "keyboard":
        from drivers.panel.keyboard import KeyboardPanel

        return KeyboardPanel(seats, on_event=on_event, clock=clock)
    pins: Pins
    if name == "sim":
        pins = SimPins(cfg.panel.pins, clock=clock)
    elif name == "gpio":
        pins = GpioPins()
    else:
        raise UserError(f"panel backend {name!r} unknown (allowed: gpio, sim, keyboard)")
    return MatrixPanel(pins, cfg.panel, seats, on_event, clock=clock, sleep=sleep or time.sleep)
