"""The card shoe reader: ICD framing, reliable link, driver, simulator and monitor.

The table service uses :class:`ShoeDriver` (see docs/shoe.md); the bench uses
:class:`ShoeSimulator`. Heavy pieces are imported lazily so ``import drivers.shoe`` stays
cheap for the command line.
"""

from __future__ import annotations

from typing import Any

from drivers.shoe.framing import Decoder, Frame, crc16, encode
from drivers.shoe.reliability import ICD_TIMING, Link, Timing
from drivers.shoe.reports import ShoeReport

__all__ = ["ICD_TIMING", "Decoder", "Frame", "Link", "ShoeDriver", "ShoeReport",
           "ShoeSimulator", "Timing", "crc16", "encode"]


def __getattr__(name: str) -> Any:
    if name == "ShoeDriver":
        from drivers.shoe.driver import ShoeDriver

        return ShoeDriver
    if name == "ShoeSimulator":
        from drivers.shoe.simulator import ShoeSimulator

        return ShoeSimulator
    raise AttributeError(name)
