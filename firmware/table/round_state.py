"""Where a game stands between rounds, as the journal's readers ask it: a round ended
(settled or voided, also under a later tilt) or one in progress.

The start's replay (:mod:`firmware.table.recovery`), the meter proof
(:mod:`firmware.table.meter_proof`), the controller and the floor gate all ask it; it
lives apart so the proof need not import the recovery that runs it.
"""

from __future__ import annotations

from firmware.engine import phases as P
from firmware.engine.game import Game


def round_ended(game: Game) -> bool:
    """The last round is settled or voided — also while a tilt that came after it (a
    stray card between rounds) pauses the table: resuming must not end it a second time."""
    if game.phase == P.TILT and game.tilt is not None:
        return game.tilt.resume_phase in (P.SETTLED, P.VOIDED)
    return game.phase in (P.SETTLED, P.VOIDED)


def in_round(game: Game) -> bool:
    """A round is in progress: cards or wagers at stake that are not settled."""
    if game.phase in P.IN_ROUND or game.phase == P.TILT:
        return True
    return game.phase == P.BETTING and any(s.staked for s in game.seats)
