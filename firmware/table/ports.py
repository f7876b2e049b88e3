"""The controller's ports: what it needs of each device, as Protocols in one place.

The controller talks to the shoe, the panels, the RNG and the screen only through these,
so a test hands it a recording fake, the bench a simulator and the table the drivers,
without the controller knowing which (and without importing a driver).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from etgcore.view import PublicView

if TYPE_CHECKING:
    from firmware.engine.game import Game
    from firmware.engine.inputs import Input
    from firmware.journal import EventCode, Journal
    from firmware.journal.witness import WitnessRead
    from firmware.table.floor_gate import FloorGate


class ShoePort(Protocol):
    """The shoe driver's commands (shoe ICD §5); each is queued, never blocks."""

    def lock(self) -> None: ...
    def unlock(self) -> None: ...
    def new(self, decks: int) -> None: ...
    def led(self, mode: str) -> None: ...
    def query(self) -> None: ...


class PanelPort(Protocol):
    """The lamps of the player panels: ``{seat: {button, ...}}``, every other lamp dark."""

    def set_lamps(self, lit: Mapping[int, Any]) -> bool: ...


class RngPort(Protocol):
    """The certified RNG, asked only when the engine expects a draw."""

    def draw_bingo(self, round_no: int, target_weights: Any, multiplier_weights: Any) -> Any: ...
    def weighted_choice(self, weights: Mapping[int, int]) -> int: ...


class FloorPort(Protocol):
    """The floor link (table side): it drains the journal's outbox to the floor and hands
    the floor's commands to the table; the view is offered for the pit's status."""

    def start(self) -> object: ...
    def stop(self) -> None: ...
    def offer_view(self, view: PublicView, closed: bool) -> None: ...
    #: called with every acknowledgement the floor sends while set (a table holding
    #: play for its witness: firmware.table.service.floor_witness)
    on_witness: Callable[[dict[str, Any]], None] | None


#: Opens the floor link on the table's journal (before the table writes anything: its
#: outbox joins the journal's transactions), the floor's commands going to the callback.
#: The command line builds it from the configuration's floor section; the table never
#: imports the floor.
OpenFloorLink = Callable[["Journal", Callable[[dict[str, Any]], None]], FloorPort]


#: Asks the floor for its acknowledgement of this table (the witness the journal is
#: checked against at start, firmware.journal.witness), within the configured deadline;
#: built by the command line from the floor section, like the link.
ReadWitness = Callable[[], "WitnessRead"]


class UiPort(Protocol):
    """The screen side: public views (never the private one) and finished rounds."""

    def publish(self, view: PublicView) -> None: ...
    def round_done(self, record: dict[str, Any]) -> None: ...


class TableHost(Protocol):
    """What the request desk may ask of the controller: the game to read, an input to take
    (journal first, then the game), an event-log record and a refresh of the commands and
    the screen. Nothing else: a collaborator owns its own state and never reaches into the
    controller's. (Device reports need none of it: they return steps instead.)"""

    @property
    def game(self) -> Game: ...
    def take(self, inp: Input, source: str) -> bool: ...
    def event(self, code: EventCode, round_no: int | None = None, /, **body: Any) -> None: ...
    def refresh(self) -> None: ...


class RequestHost(TableHost, Protocol):
    """The attendant and bench commands also see the table's failure and floor gate,
    stop the table on a journal failure, queue a forced draw and read the status."""

    @property
    def failure(self) -> str | None: ...
    @property
    def floor_gate(self) -> FloorGate: ...
    def fail(self, why: str, code: EventCode | None) -> None: ...
    def force_draw(self, values: dict[str, int]) -> None: ...
    def status(self) -> dict[str, Any]: ...


#: how the controller hands a public view to the screen (``UiPort.publish``)
Publish = Callable[[PublicView], None]
#: how the controller hands a finished round's record to the screen (``UiPort.round_done``)
OnRound = Callable[[dict[str, Any]], None]
