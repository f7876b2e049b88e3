"""The panels' settings (``[panel]`` and ``[panel.pins]``), owned by the panel driver.

The table's configuration only assembles these; :func:`drivers.panel.open_panel` and the
scanner take a :class:`PanelSettings` (and the seat count), never the whole table
configuration. The pin map's own checks are in :mod:`drivers.panel.pinmap`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from etgcore.config_schema import doc, ranged

PanelBackend = Literal["gpio", "sim", "keyboard"]


@dataclass(frozen=True)
class PinMap:
    """BCM pin numbers of the panel ICD; defaults are the reference wiring."""

    rows: tuple[int, ...] = field(
        default=(5, 6, 12, 13, 16, 19, 20), metadata=doc("matrix rows, seat 1..7 (outputs)")
    )
    columns: tuple[int, ...] = field(
        default=(21, 22, 23, 24, 25, 26, 27, 4), metadata=doc("matrix columns, buttons 0..7")
    )
    lamp_data: int = field(default=17, metadata=ranged(0, 27, "74HC595 DATA"))
    lamp_clock: int = field(default=18, metadata=ranged(0, 27, "74HC595 CLOCK"))
    lamp_latch: int = field(default=7, metadata=ranged(0, 27, "74HC595 LATCH"))
    deal: int = field(default=8, metadata=ranged(0, 27, "console DEAL"))
    shuffle: int = field(default=9, metadata=ranged(0, 27, "console SHUFFLE"))
    void: int = field(default=10, metadata=ranged(0, 27, "console VOID key switch"))
    recall: int = field(default=11, metadata=ranged(0, 27, "console RECALL key switch"))


@dataclass(frozen=True)
class PanelSettings:
    backend: PanelBackend = field(default="sim", metadata=doc("gpio, sim or keyboard"))
    scan_period_ms: float = field(
        default=5.0, metadata=ranged(1.0, 10.0, "matrix scan period (ICD: at most 10 ms)")
    )
    settle_us: int = field(
        default=50, metadata=ranged(50, 1000, "settling after driving a row (ICD: >= 50 us)")
    )
    debounce_ms: float = field(
        default=20.0, metadata=ranged(20.0, 200.0, "minimum time between accepted changes")
    )
    stuck_key_s: float = field(
        default=30.0, metadata=ranged(1.0, 3600.0, "a key held longer is reported stuck")
    )
    pins: PinMap = field(default_factory=PinMap, metadata=doc("BCM pin map"))
