"""Validation of ``[panel.pins]`` against the panel ICD and the table's seat count.

A wrong pin map does not fail loudly on the table: a duplicate pin shorts an output to
an input, a reserved pin silently breaks the I²C bus or the console UART, a missing
row leaves a seat's buttons dead. So the map is checked whenever a configuration is
loaded (the table configuration's loader calls :func:`check_pin_map` from its explicit
list of checks) and again when a panel is opened.
"""

from __future__ import annotations

from drivers.panel.settings import PanelSettings, PinMap
from etgcore.errors import ConfigError

RESERVED: dict[int, str] = {2: "I²C SDA", 3: "I²C SCL", 14: "UART TXD", 15: "UART RXD"}
PIN_RANGE = range(0, 28)  # BCM 0..27 are on the 40-pin header
COLUMNS = 8
MAX_ROWS = 7


def pin_keys(pins: PinMap) -> list[tuple[str, int]]:
    """Every pin of the map with the configuration key that names it."""
    keys = [(f"panel.pins.rows[{i}]", p) for i, p in enumerate(pins.rows)]
    keys += [(f"panel.pins.columns[{i}]", p) for i, p in enumerate(pins.columns)]
    keys += [
        (f"panel.pins.{name}", getattr(pins, name))
        for name in ("lamp_data", "lamp_clock", "lamp_latch", "deal", "shuffle", "void", "recall")
    ]
    return keys


def check_pin_map(panel: PanelSettings, seats: int, source: str) -> None:
    """Raise :class:`ConfigError` naming the key of the first problem in the pin map.

    ``seats`` is the table's seat count (one row per seat); ``source`` names the file.
    """
    src, pins = source, panel.pins
    if len(pins.columns) != COLUMNS:
        raise ConfigError(
            src, "panel.pins.columns",
            f"needs exactly {COLUMNS} pins (one per button, BET..INSURANCE), "
            f"got {len(pins.columns)}",
        )
    if len(pins.rows) > MAX_ROWS:
        raise ConfigError(
            src, "panel.pins.rows",
            f"at most {MAX_ROWS} rows (one per seat, the lamp chain has 7 registers), "
            f"got {len(pins.rows)}",
        )
    if len(pins.rows) < seats:
        raise ConfigError(
            src, "panel.pins.rows",
            f"{len(pins.rows)} row(s) cannot serve table.seats = {seats}: one row per seat",
        )
    seen: dict[int, str] = {}
    for key, pin in pin_keys(pins):
        if pin not in PIN_RANGE:
            raise ConfigError(src, key, f"BCM {pin} is not a header GPIO (allowed: 0 to 27)")
        if pin in RESERVED:
            raise ConfigError(
                src, key,
                f"BCM {pin} is reserved for {RESERVED[pin]} (BCM 2, 3, 14, 15 stay free)",
            )
        if pin in seen:
            raise ConfigError(src, key, f"BCM {pin} is already used by {seen[pin]}")
        seen[pin] = key
    scan_us = seats * panel.settle_us
    if scan_us >= panel.scan_period_ms * 1000:
        raise ConfigError(
            src, "panel.settle_us",
            f"{seats} rows x {panel.settle_us} us settling does not fit in "
            f"panel.scan_period_ms = {panel.scan_period_ms:g}",
        )

