"""What ``etg run`` is asked to do (:class:`RunOptions`, built by the command line) and what
its power-up made (:class:`PoweredUp`).

They live apart from :mod:`firmware.table.service.run` so the steps the run calls (the
preflight, the device start-up) can read them without importing the run that calls them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from firmware.table.controller import Controller
    from firmware.table.ports import FloorPort, OpenFloorLink, ReadWitness
    from firmware.table.service.autoplay import StrategyFor


@dataclass
class RunOptions:
    seats: int
    auto_play: bool = False
    rounds: int = 0
    headless: bool = False
    control: str | None = None  # bench control socket (bench mode only)
    pace: float | None = None
    quiet: bool = False
    demo: bool = False  # `make run`: every seat starts with credits on a new journal
    #: the floor link, when the configuration names a floor (built by the command line)
    floor_link: OpenFloorLink | None = None
    #: the floor's acknowledgement, asked at start (the journal's witness off the box)
    floor_witness: ReadWitness | None = None
    #: no witness at start: hold play until the floor link brings one (floor.witness)
    witness_required: bool = False
    #: the auto-players' computed strategy (the command line hands in firmware.math's)
    strategy_for: StrategyFor | None = None
    #: the window demo's game picked with F2 (the command line starts it next), or None
    next_game: str | None = None
    #: the program's version (the command line's), shown on the attendant screen
    version: str = ""


@dataclass
class PoweredUp:
    """What power-up made: the controller (table recovered) and what it talks to."""

    ctl: Controller
    bridge: Any  # firmware.table.service.ui_bridge.UiBridge
    table_rng: Any
    floor_link: FloorPort | None
