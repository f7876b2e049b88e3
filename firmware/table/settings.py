"""The ``[table]`` section of a configuration, and what the table reads of a configuration.

The configuration as a whole (:class:`firmware.config.TableConfig`) is assembled above the
table, by the composition root; the table says here, as a Protocol, which sections it
reads (:class:`TableSetup`), so it never imports the configuration module back. The
floor section is not among them: the command line opens the floor link and hands it in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from drivers.panel.settings import PanelSettings
from drivers.sas.settings import SasSettings
from drivers.shoe.settings import ShoeSettings
from etgcore.config_schema import doc, ranged, text
from firmware.engine.rules import Variant
from firmware.journal.settings import JournalSettings
from rng.settings import RngSettings
from ui.settings import DisplaySettings

Mode = Literal["production", "bench"]


@dataclass(frozen=True)
class TableSettings:
    variant: Variant = field(default="blackjack", metadata=doc("the game this table deals"))
    seats: int = field(default=7, metadata=ranged(1, 7, "player seats with a panel"))
    mode: Mode = field(
        default="bench",
        metadata=doc("production (casino floor) or bench (test rig: forced draws, seeds)"),
    )
    certificate_holder: str = field(
        default="Certificate Holder", metadata=text("name shown on the layout (§ 633b.26(b)(1))")
    )
    table_id: str = field(default="BJ-01", metadata=text("table number for recall and meters"))
    max_transfer_cents: int = field(
        default=10_000_000, metadata=ranged(1, 10**12, "largest credit transfer, in cents"))
    max_seat_credits: int = field(
        default=99_999_999, metadata=ranged(
            1, 10**12, "most credits a seat may hold, cents (at most 99999999 with SAS on)"))


class TableSetup(Protocol):
    """The sections of a configuration the table service reads (``TableConfig`` has them)."""

    @property
    def table(self) -> TableSettings: ...
    @property
    def shoe(self) -> ShoeSettings: ...
    @property
    def panel(self) -> PanelSettings: ...
    @property
    def display(self) -> DisplaySettings: ...
    @property
    def journal(self) -> JournalSettings: ...
    @property
    def rng(self) -> RngSettings: ...
    @property
    def sas(self) -> SasSettings: ...
    @property
    def rules(self) -> Mapping[str, Any]: ...
    @property
    def source(self) -> str: ...
    @property
    def bench(self) -> bool: ...
