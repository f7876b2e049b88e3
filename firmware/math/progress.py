"""Progress of the analysis (`etg par`): the strategy, then the return, each a stage.

Why a context rather than a parameter: the stages run inside calculations that are
cached by their rules (:func:`firmware.math.games.split_to_double.hand_values.std_solve_strategy`,
the analysis itself), shared by the automatic players, the fast path and the bench, and a callback
in their arguments would be part of the cache key. The command that wants progress
says so around the call (:func:`shown`); a calculation marks its stage
(:func:`stage`) and advances it; with no display set (every other caller) a stage
costs nothing. A cached result shows no stage: nothing is computed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol


class Display(Protocol):
    """What a stage needs of a progress display (:class:`etgcore.progress.Progress`)."""

    def advance(self, n: int = 1) -> None: ...

    def close(self, finished: bool | None = None) -> None: ...


#: (total, unit, label) -> a display, while a command shows the analysis' progress
Factory = Callable[[int, str, str], Display]

_factory: ContextVar[Factory | None] = ContextVar("etg_analysis_progress", default=None)


def _nothing(n: int = 1) -> None:
    """A stage's advance when no progress is shown."""


@contextmanager
def shown(factory: Factory | None) -> Iterator[None]:
    """Show the stages run inside this block with displays from ``factory`` (None: not
    shown)."""
    token = _factory.set(factory)
    try:
        yield
    finally:
        _factory.reset(token)


@contextmanager
def stage(total: int, unit: str, label: str) -> Iterator[Callable[[int], None]]:
    """A stage of ``total`` ``unit`` (0: not known ahead); yields its ``advance(n)``."""
    factory = _factory.get()
    if factory is None:
        yield _nothing
        return
    display = factory(total, unit, label)
    try:
        yield display.advance
    except BaseException:
        display.close(finished=False)
        raise
    display.close(finished=True)


def each_up_card(solve_up: Callable[[int], None]) -> None:
    """``solve_up(up)`` for the ten up cards, as the "strategy" stage (every solver
    builds its table by up card)."""
    with stage(10, "up cards", "strategy") as advance:
        for up in range(1, 11):
            solve_up(up)
            advance(1)


__all__ = ["Display", "Factory", "each_up_card", "shown", "stage"]
