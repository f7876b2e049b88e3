"""The SAS link's settings (``[sas]`` of the table configuration), owned by the link.

Each seat is a gaming machine with its own address on the line; the table itself may
have one too (its totals, and a disable of the whole table). Asset numbers are the
casino's: seat ``n`` is ``asset_base + n``, the table ``asset_base``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from etgcore.config_schema import doc, ranged, text
from etgcore.errors import ConfigError


@dataclass(frozen=True)
class SasSettings:
    port: str = field(default="off", metadata=text(
        "the SAS line: 'off', 'pty' (a pseudo-terminal, logged as 'SAS link on PATH'; "
        "a bench power) or a device path (/dev/ttyAMA1)"))
    addresses: tuple[int, ...] = field(default=(1, 2, 3, 4, 5, 6, 7), metadata=doc(
        "SAS address of seat 1, 2, ... (1..127, each different)"))
    table_address: int = field(default=0, metadata=ranged(
        0, 127, "SAS address of the table itself (its totals; 0: none)"))
    asset_base: int = field(default=46000, metadata=ranged(
        1, 4_000_000_000, "asset number of the table; seat n is this plus n"))
    host_lost_s: float = field(default=30.0, metadata=ranged(
        1.0, 3600.0, "no poll for this long: the host is lost (an event)"))
    disable_on_host_loss: bool = field(default=False, metadata=doc(
        "close the seats for play while the host is lost"))
    interbyte_ms: float = field(default=5.0, metadata=ranged(
        1.0, 100.0, "a gap longer than this ends a host's message (pty framing)"))


def check_sas(s: SasSettings, seats: int, production: bool, source: str) -> None:
    """Addresses valid and distinct for every seat; production refuses a pty."""
    if s.port == "off":
        return
    if production and s.port == "pty":
        raise ConfigError(source, "sas.port", "a pseudo-terminal is a bench power; "
                          "production mode needs the SAS line's device path")
    if s.port != "pty" and not s.port.startswith("/dev/"):
        raise ConfigError(source, "sas.port", "give 'off', 'pty' or a device path")
    if len(s.addresses) < seats:
        raise ConfigError(source, "sas.addresses",
                          f"{len(s.addresses)} addresses for {seats} seats")
    used = list(s.addresses[:seats]) + ([s.table_address] if s.table_address else [])
    for a in used:
        if not 1 <= a <= 127:
            raise ConfigError(source, "sas.addresses", f"address {a} is outside 1..127")
    if len(set(used)) != len(used):
        raise ConfigError(source, "sas.addresses", "two machines share an address")
