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
    seat_ports: tuple[str, ...] = field(default=(), metadata=doc(
        "one line per seat instead: seat 1's device path (or 'pty'), seat 2's, ...; "
        "'' keeps that seat on sas.port"))
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
    layout: str = field(default="process", metadata=text(
        "'process': each line's link in a process of its own (its own interpreter: polls "
        "answered within the deadline while the table renders); 'thread': in the "
        "table's process"))
    priority: str = field(default="raised", metadata=text(
        "'raised': the link runs before the table's work when a poll comes (its process "
        "SCHED_FIFO under a CPU-time guard, or nice -10; the link thread nice -10), if the "
        "table has the privilege (CAP_SYS_NICE); 'normal': as the rest of the table"))
    interbyte_ms: float = field(default=5.0, metadata=ranged(
        1.0, 100.0, "a gap longer than this ends a host's message (pty framing)"))


def check_sas(s: SasSettings, seats: int, production: bool, source: str) -> None:
    """Addresses valid and distinct for every seat; production refuses a pty."""
    if not enabled(s):
        return
    if s.layout not in ("process", "thread"):
        raise ConfigError(source, "sas.layout", "give 'process' or 'thread'")
    if s.priority not in ("raised", "normal"):
        raise ConfigError(source, "sas.priority", "give 'raised' or 'normal'")
    for key, spec in (("sas.port", s.port), *(("sas.seat_ports", p) for p in s.seat_ports)):
        if spec in ("", "off") and key == "sas.seat_ports":
            continue
        if production and spec == "pty":
            raise ConfigError(source, key, "a pseudo-terminal is a bench power; "
                              "production mode needs the SAS line's device path")
        if spec not in ("pty", "off") and not spec.startswith("/dev/"):
            raise ConfigError(source, key, "give 'off', 'pty' or a device path")
    if len(s.seat_ports) > seats:
        raise ConfigError(source, "sas.seat_ports", f"{len(s.seat_ports)} ports for {seats} seats")
    if s.port == "off" and (s.table_address or len(s.seat_ports) < seats
                            or "" in s.seat_ports):
        raise ConfigError(source, "sas.port", "machines without a line of their own need "
                          "sas.port (or give every seat one in sas.seat_ports)")
    if len(s.addresses) < seats:
        raise ConfigError(source, "sas.addresses",
                          f"{len(s.addresses)} addresses for {seats} seats")
    used = list(s.addresses[:seats]) + ([s.table_address] if s.table_address else [])
    for a in used:
        if not 1 <= a <= 127:
            raise ConfigError(source, "sas.addresses", f"address {a} is outside 1..127")
    if len(set(used)) != len(used):
        raise ConfigError(source, "sas.addresses", "two machines share an address")


def enabled(s: SasSettings) -> bool:
    """Whether any SAS line is configured."""
    return s.port != "off" or any(p not in ("", "off") for p in s.seat_ports)


def own_line(s: SasSettings, seat: int) -> bool:
    """Whether ``seat`` has a line of its own (``sas.seat_ports``)."""
    return 1 <= seat <= len(s.seat_ports) and s.seat_ports[seat - 1] not in ("", "off")


def port_of(s: SasSettings, seat: int) -> str:
    """The line of ``seat`` (0: the table's own machine)."""
    return s.seat_ports[seat - 1] if own_line(s, seat) else s.port
