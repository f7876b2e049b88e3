"""What the controller's collaborators ask it to do, as values: the steps it carries out.

A collaborator that is handed a happening (a device report, a repeated tilt) returns
steps instead of calling back into the controller: the controller alone writes the
journal and applies inputs, in the order the steps come (``Controller.carry_out``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from firmware.engine.inputs import Input
from firmware.journal import EventCode


@dataclass(frozen=True, slots=True)
class Log:
    """An event-log record to write (in the game's current round)."""

    code: EventCode
    body: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class LoadShoe:
    """Tell the shoe a new shoe of ``decks`` decks was loaded (a simulator shuffles one)."""

    decks: int


@dataclass(frozen=True, slots=True)
class Take:
    """An input for the game: journal first, then the game.

    ``then`` follows only when the game accepts the input; ``if_paused`` names records to
    write when the game pauses on this input with one of those tilt codes (the game's
    verdict, not a guess made before it)."""

    input: Input
    source: str
    then: tuple[Log | LoadShoe, ...] = ()
    if_paused: Mapping[str, Log] = field(default_factory=dict)


Step = Take | Log | LoadShoe
