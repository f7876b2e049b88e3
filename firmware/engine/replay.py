"""Replay: the one way a table is rebuilt from the inputs it was fed.

The engine is deterministic, so a table built the same way (:func:`new_game`) and fed
the same inputs (:func:`apply_recorded`, one at a time) is the same table, to the last
card (compare :meth:`Game.private_view`). Power-fail recovery reads the journal's last
epoch and its input records and rebuilds the table through these two functions
(``firmware/table/recovery.py``); recall, the attendant's offline transfers and the soak
bench's journal audit (replay equals meters, money moved exactly once) all start from
what recovery rebuilt. :func:`replay` is the same for a list of inputs in memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from firmware.engine.game import Game
from firmware.engine.inputs import CreditsIn, Input
from firmware.engine.rejected import Rejected
from firmware.engine.rules import Rules


def new_game(
    rules: Rules, seats: int | None = None, bench: bool = False,
    carry: Mapping[int, int] | None = None, shoe_in_play: bool = False,
) -> Game:
    """A table as an epoch of the journal starts it: ``carry`` holds the credits per seat
    carried in from the epoch before (applied as credits in, seat by seat in order)."""
    table = Game(rules, seats=seats, bench=bench, shoe_in_play=shoe_in_play)
    for seat, cents in (carry or {}).items():
        table.apply(CreditsIn(seat, cents))
    return table


def apply_recorded(game: Game, inp: Input) -> Exception | None:
    """Apply a recorded input exactly as it was applied live; the error it raised, if any.

    An input the table refused live (:class:`Rejected`) is refused again identically and
    changes nothing. Any other error was contained live as well (the controller tilts
    the table INTERNAL after it, and that fault is an input of its own), so replay goes
    on past it the same way; the caller logs it.
    """
    try:
        game.apply(inp)
    except Rejected as exc:
        return exc
    except Exception as exc:
        return exc
    return None


def replay(
    rules: Rules, inputs: Iterable[Input], seats: int | None = None, bench: bool = False,
    shoe_in_play: bool = False,
) -> Game:
    """A new table with these rules, fed ``inputs`` in order (refusals change nothing)."""
    table = new_game(rules, seats=seats, bench=bench, shoe_in_play=shoe_in_play)
    for inp in inputs:
        apply_recorded(table, inp)
    return table
