"""The panel backends, one registry: a name in ``[panel] backend`` -> how to check it on
this machine and how to open it.

Each backend registers itself here (one :class:`~etgcore.registry.Registry`, the shoe
reader models' type too; python-can's interfaces, gpiozero's pin factories do the same),
so :func:`drivers.panel.open_panel`, :func:`drivers.panel.check_backend` and
the test suite over every backend (tests/panel/test_panel_backends.py) read one table
instead of an if-chain each. A new backend is one entry: its opener and its check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from etgcore.registry import Registry

if TYPE_CHECKING:
    from drivers.panel.panel import Panel, ReportSink
    from drivers.panel.settings import PanelSettings

#: (settings, seats, on_report, clock, sleep) -> the panel, not started
Opener = Callable[["PanelSettings", int, "ReportSink | None", Callable[[], float],
                   Callable[[float], None]], "Panel"]


@dataclass(frozen=True)
class Backend:
    name: str
    open: Opener
    #: raise the UserError opening would raise on this machine, opening nothing
    check: Callable[[], None]
    #: a bench's stand-in, refused in production (principle 3)
    simulated: bool
    doc: str


BACKENDS: Registry[Backend] = Registry("panel backend", lambda b: b.name)
register_backend = BACKENDS.register
#: the registered backend ``name``, or the one-line UserError naming those there are
backend = BACKENDS.lookup


def _nothing() -> None:
    return None


def _keyboard(settings: PanelSettings, seats: int, on_report: ReportSink | None,
              clock: Callable[[], float], sleep: Callable[[float], None]) -> Panel:
    from drivers.panel.keyboard import KeyboardPanel

    return KeyboardPanel(seats, on_report=on_report, clock=clock)


def _sim(settings: PanelSettings, seats: int, on_report: ReportSink | None,
         clock: Callable[[], float], sleep: Callable[[float], None]) -> Panel:
    from drivers.panel.panel import MatrixPanel
    from drivers.panel.sim_pins import SimPins

    return MatrixPanel(SimPins(settings.pins, clock=clock), settings, seats, on_report,
                       clock=clock, sleep=sleep)


def _gpio(settings: PanelSettings, seats: int, on_report: ReportSink | None,
          clock: Callable[[], float], sleep: Callable[[float], None]) -> Panel:
    from drivers.panel.gpio_pins import GpioPins  # not on a bench's simulated panel
    from drivers.panel.panel import MatrixPanel

    return MatrixPanel(GpioPins(), settings, seats, on_report, clock=clock, sleep=sleep)


def _gpio_check() -> None:
    from drivers.panel.gpio_pins import load_gpio_module

    load_gpio_module()


register_backend(Backend("gpio", _gpio, _gpio_check, False,
                         "the panel ICD's key matrix and lamps on the Pi's GPIO (RPi.GPIO)"))
register_backend(Backend("sim", _sim, _nothing, True,
                         "the electrical simulator of the same matrix (reach it as panel.sim)"))
register_backend(Backend("keyboard", _keyboard, _nothing, True,
                         "the UI window's keys (docs/table.md), no lamps"))
