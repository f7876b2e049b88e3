"""The shoe's settings (``[shoe]`` of the table configuration), owned by the shoe driver.

The table's configuration only assembles these; the driver, the simulator and the
command line take a :class:`ShoeSettings`, never the whole table configuration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from etgcore.config_schema import ranged, text


@dataclass(frozen=True)
class ShoeSettings:
    port: str = field(
        default="sim",
        metadata=text("pyserial URL of the shoe (/dev/etg-shoe, socket://host:port) or 'sim'"),
    )
    sim_pace_s: float = field(
        default=0.2, metadata=ranged(0.0, 10.0, "simulated shoe: seconds between cards")
    )
    sim_penetration: float = field(
        default=0.75, metadata=ranged(0.1, 0.95, "simulated shoe: cut card position, fraction")
    )
