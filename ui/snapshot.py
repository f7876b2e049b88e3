"""Headless snapshots: a table state rendered to PNG without a display.

The state is real engine output, never a hand-made view: an empty table of the variation
(seats funded, betting open), or a view the bench recorded from a scenario's first round
(:mod:`firmware.bench.screen_views`; the UI knows nothing of scenarios). SDL's dummy
video driver is selected before pygame starts, so this runs on a server, in CI and over
SSH.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from etgcore.errors import UserError
from etgcore.view import PublicView
from ui.layout_data import Layout
from ui.model import RenderModel
from ui.state import RecallEntry, ScreenState

SNAPSHOT_CREDITS = 100_000  # cents each seat holds in an empty-table snapshot
SNAPSHOT_T = 100.0          # the clock a snapshot is drawn at (betting closes relative to it)


def headless() -> None:
    """Select SDL's dummy drivers unless the caller chose others; start pygame's display."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    import pygame

    pygame.display.init()
    pygame.font.init()


def empty_table_view(rules: Any, seats: int | None = None, tilt: bool = False) -> PublicView:
    """The engine's view of a table with a shoe in play, every seat funded, betting open.

    With ``tilt`` the engine is told the shoe misread a card, so the view carries the
    engine's own tilt cause and what the dealer must do.
    """
    from firmware.engine import CreditsIn, Fault, Game

    table = Game(rules, seats=seats, bench=True, shoe_in_play=True)
    for seat in range(1, table.nseats + 1):
        table.apply(CreditsIn(seat, SNAPSHOT_CREDITS))
    if tilt:
        table.apply(Fault("MISREAD"))
    return table.public_view()


def screen_state(screen: str, view: PublicView, countdown: float) -> ScreenState:
    """The screen state a snapshot of ``screen`` needs, built from the view itself."""
    if screen == "betting":
        return ScreenState("betting", betting_closes_at=SNAPSHOT_T + countdown,
                           betting_opened_at=SNAPSHOT_T)
    if screen == "recall":
        # a snapshot's round never ended at any time: no "ended ..." on its subtitle
        return ScreenState("recall", recall=(RecallEntry(view, ""),))
    if screen == "failure":
        return ScreenState(failure={"kind": "rng", "message": "snapshot of the failure screen"})
    return ScreenState(screen)


def render_png(view: PublicView, layout: Layout, state: ScreenState,
               size: tuple[int, int], out: str | Path) -> RenderModel:
    """Draw one frame (animations at rest) and save it; returns its render model."""
    headless()
    import pygame

    from ui.renderer import Renderer, new_surface

    out = Path(out)
    if out.suffix.lower() != ".png":
        raise UserError(f"--out {out}: the snapshot is a PNG file; name it *.png")
    from etgcore.errors import output_file

    output_file(out)  # the directory is created when missing
    renderer = Renderer(size, layout, animate=False)
    surf = new_surface(size)
    renderer.render(surf, view, state, SNAPSHOT_T)
    try:
        pygame.image.save(surf, str(out))
    except (pygame.error, OSError) as exc:
        raise UserError(f"--out {out}: cannot write: {exc}") from None
    return renderer.model
