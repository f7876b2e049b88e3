"""Player button panels, lamps and dealer console (panel ICD), on GPIO or simulated.

Use :func:`open_panel` with the panel's settings (:mod:`drivers.panel.settings`) and the
seat count; see docs/panel.md. Importing this package is cheap (no pygame, no RPi.GPIO).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from drivers.panel import backends
from drivers.panel import pinmap as _pinmap
from drivers.panel.buttons import BUTTONS, CONSOLE_BUTTONS, PanelReport
from drivers.panel.panel import MatrixPanel, Panel, ReportSink
from drivers.panel.settings import PanelBackend, PanelSettings
from drivers.panel.sim_pins import SimPins

__all__ = [
    "BUTTONS",
    "CONSOLE_BUTTONS",
    "MatrixPanel",
    "Panel",
    "PanelReport",
    "ReportSink",
    "SimPins",
    "check_backend",
    "open_panel",
]


def check_backend(backend: PanelBackend) -> None:
    """Raise the :class:`UserError` :func:`open_panel` would raise for ``backend`` on this
    machine (``gpio`` without RPi.GPIO), without opening anything: a command checks it
    with its other options, before it creates a file."""
    backends.backend(backend).check()


def open_panel(
    settings: PanelSettings,
    seats: int,
    backend: PanelBackend | None = None,
    on_report: ReportSink | None = None,
    clock: Callable[[], float] | None = None,
    sleep: Callable[[float], None] | None = None,
) -> Panel:
    """The panel ``settings`` describe (or of ``backend``) for ``seats`` seats, not started.

    The backend comes from the registry (:mod:`drivers.panel.backends`): ``gpio`` imports
    RPi.GPIO now (a clear :class:`UserError` if it cannot); ``sim`` builds the electrical
    simulator (reach it as ``panel.sim``); ``keyboard`` returns a
    :class:`~drivers.panel.keyboard.KeyboardPanel` fed by the UI's key events.
    """
    _pinmap.check_pin_map(settings, seats, "panel settings")  # also if built by hand
    chosen = backends.backend(backend or settings.backend)
    return chosen.open(settings, seats, on_report, clock or time.monotonic,
                       sleep or time.sleep)
