"""Which screen is up: derived from the public view, or set by the controller.

Most screens follow the round's phase (idle -> attract, betting -> countdown, tilt,
voided). Three things are not in a public view and come from the controller instead:
when betting closes, the game recall records while the RECALL key is held, and an RNG
or journal failure that closes the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from etgcore.view import PublicView

SCREENS = ("auto", "table", "attract", "betting", "tilt", "void", "recall", "failure")
#: screens that cover the whole display (nothing of the table is drawn under them)
OPAQUE_SCREENS = frozenset({"failure", "attendant"})
PHASE_SCREENS = {"idle": "attract", "betting": "betting", "tilt": "tilt", "voided": "void"}
RECALL_DEPTH = 10


@dataclass(frozen=True)
class RecallEntry:
    """One past round for game recall: its final public view and when it ended."""

    view: PublicView
    ended: str = ""


@dataclass(frozen=True)
class ScreenState:
    """What the controller tells the UI beyond the public view.

    ``betting_closes_at`` is on the renderer's clock (the runner converts the
    controller's "closes in N seconds"). ``failure`` is ``{"kind": "rng"|"journal",
    "message": str}``. ``selected_seat`` and ``panel_keys`` come from a keyboard panel
    (``{"kind": "panel", ...}``): the seat its letter keys act for is marked, and the lit
    buttons show the key that presses them.
    """

    screen: str = "auto"
    betting_closes_at: float | None = None
    betting_opened_at: float | None = None
    recall: tuple[RecallEntry, ...] = ()
    recall_index: int = 0
    failure: Mapping[str, Any] | None = field(default=None)
    #: why the table holds play (the controller's ``held``): shown instead of the prompt
    held: str | None = None
    #: the seat the keyboard panel's letter keys act for (None: no keyboard panel)
    selected_seat: int | None = None
    #: (panel button or console input, the key that presses it) of a keyboard panel: the
    #: key caps on the lit buttons and the keys beside the prompts (ui.keys)
    panel_keys: tuple[tuple[str, str], ...] = ()
    #: (keys, what they do) of a keyboard panel, for the key help, and whether it is up
    key_legend: tuple[tuple[str, str], ...] = ()
    legend_shown: bool = False
    #: the window demo (`make run`): the game F2 switches to, by its title (None: not a
    #: demo, F2 and Esc do nothing but close the help)
    next_game: str | None = None
    #: a 1x-4x double being sized on the panel ({"seat", "hand", "times"}), None: none
    pending_double: Mapping[str, int] | None = None
    #: the attendant screen (attendant key held): the table's pages (meters, events,
    #: configuration; ``ui.attendant``) and the DEAL presses since the key was turned
    attendant_pages: tuple[Mapping[str, Any], ...] = ()
    attendant_page: int = 0
    #: the seats their slot system disabled (SAS shutdown): marked at their spots
    closed_seats: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if self.screen not in SCREENS:
            raise ValueError(f"unknown screen {self.screen!r} (one of {', '.join(SCREENS)})")


def resolve_screen(view: PublicView | None, state: ScreenState) -> str:
    """The screen to draw now. The attendant's pages go over a closed table's screen too
    (the meters of a table the floor closed, or whose RNG failed, are read on it); the
    table stays closed, and the failure is back when the key is released."""
    if state.attendant_pages and state.attendant_page % (len(state.attendant_pages) + 1):
        return "attendant"  # page 1 of the attendant screen is the game recall
    if state.failure:
        return "failure"
    if state.screen == "recall":
        return "recall" if state.recall else "table"
    if state.screen != "auto":
        return state.screen
    if not view:
        return "attract"
    if view.get("tilt"):
        return "tilt"
    return PHASE_SCREENS.get(str(view.get("phase")), "table")
