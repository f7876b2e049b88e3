"""Power-fail recovery: rebuild the table from the journal, exactly.

The journal is divided into *epochs*. An epoch starts with a ``meta`` record holding the
rules in force, the seat count, the mode and the credits carried in from the previous
epoch, and a checkpoint (firmware.journal.checkpoint) of the engine as it begins; the
table writes another checkpoint every few hundred rounds. The inputs after the last
checkpoint are replayed, in order, through the engine restored from it, by the engine's
one replay path (:func:`~firmware.engine.replay.apply_recorded` applies each input as it
was applied live; :mod:`firmware.table.meter_proof` walks the journal). Because the engine
is pure, the table that comes out is the table that was running when the power went, to
the last card, however long the journal. The attendant's offline transfers and the soak
bench's journal audit start from this replay too.

A new epoch starts on the first start of a journal and whenever the configuration's rules,
seats or mode change — which is allowed only between rounds: a round in progress keeps
the rules it started with, so a changed configuration is refused until it is finished or
voided under the old one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from etgcore.errors import UserError
from etgcore.money import dollars
from firmware.engine.game import Game
from firmware.engine.replay import new_game
from firmware.engine.rules import Rules
from firmware.journal import Journal
from firmware.table.round_state import in_round

log = logging.getLogger("etg.table.recovery")


@dataclass
class Recovered:
    game: Game
    epoch_seq: int
    inputs: int  # replayed (since the last checkpoint)
    finals: int  # settled or voided rounds of this epoch (the last one's record may be owed)
    finals_recorded: int  # round records written in this epoch
    in_round: bool  # a round was in progress when the table stopped
    new_epoch: bool
    #: the first input of the round not yet recorded (recall lists every input of a round
    #: from there, also those journaled before a power failure)
    round_first_seq: int | None = None


def epoch_body(rules: Rules, seats: int, bench: bool, carry: dict[int, int]) -> dict[str, Any]:
    return {
        "epoch": {
            "rules": rules.to_json(),
            "seats": seats,
            "bench": bench,
            "carry": {str(k): v for k, v in sorted(carry.items()) if v},
        }
    }


def replay(journal: Journal) -> Recovered | None:
    """The table as the journal's last epoch left it (None for a journal without one),
    replayed from the last checkpoint (firmware.table.meter_proof.walk, without its
    comparisons: the start proved the journal before this)."""
    from firmware.table.meter_proof import walk

    w = walk(journal, full=False, prove=False)
    if w.game is None:
        return None
    return Recovered(w.game, w.epoch_seq, w.inputs, w.finals, w.finals_recorded,
                     in_round(w.game), False, w.round_first_seq)


def same_setup(game: Game, rules: Rules, seats: int, bench: bool) -> bool:
    return (
        game.rules.to_json() == rules.to_json() and game.nseats == seats and game.bench == bench
    )


def open_table(journal: Journal, rules: Rules, seats: int, bench: bool) -> Recovered:
    """Recover the table from ``journal``, starting a new epoch when the setup changed."""
    from firmware.journal import Entry
    from firmware.table.meter_proof import checkpoint_part

    rec = replay(journal)
    if rec is not None and same_setup(rec.game, rules, seats, bench):
        return rec
    carry: dict[int, int] = {}
    if rec is not None:
        old = rec.game
        if rec.in_round or rec.finals > rec.finals_recorded:
            raise UserError(
                f"{journal.path}: a round is in progress (or its record is owed) under the "
                "previous configuration "
                f"({old.rules.variant}, {old.nseats} seats, "
                f"{'bench' if old.bench else 'production'} mode). To change rules, seats "
                f"or mode, first start the table as it was (etg run --variant "
                f"{old.rules.variant} --seats {old.nseats}, same rules and mode), finish the "
                "round or VOID it (supervisor key), stop it, then start the new "
                "configuration; or give the new one its own journal (--journal PATH)"
            )
        for s in old.seats:
            if s.credits and s.number > seats:
                raise UserError(
                    f"seat {s.number} still holds {dollars(s.credits)}; pay it out "
                    f"(etg credits out) before reducing the table to {seats} seats"
                )
            if s.credits:
                carry[s.number] = s.credits
        log.info("configuration changed: new journal epoch (credits carried: %s)", carry)
    table = new_game(rules, seats=seats, bench=bench, carry=carry)
    written = journal.append([Entry("meta", epoch_body(rules, seats, bench, carry))],
                             checkpoint=lambda w: checkpoint_part(table, w[0].seq, 0))
    return Recovered(table, written[0].seq, 0, 0, 0, False, True)
