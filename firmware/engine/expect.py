"""``expecting()``: what the table waits for, as one small value.

The controller turns it into commands (unlock the shoe gate for a card, light the lamps of
the legal buttons, ask the RNG for a draw); the UI shows its ``why`` line; the bench feeds
the matching input. Built on demand from the state, never stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from etgcore.money import dollars
from firmware.engine import phases as P
from firmware.engine.decisions import insurance_offer, legal_now

if TYPE_CHECKING:
    from etgcore.view import ExpectingView
    from firmware.engine.round import Round
    from firmware.engine.tilts import Tilt


@dataclass(frozen=True)
class Expecting:
    """``kind``: wagers | card | decision | draw | new-shoe | console | none.

    ``seat``/``hand`` name who a decision or card is for (None otherwise); hands are
    numbered from 1 like seats, in the order they were made (a split of hand 1 makes hand
    2), because everything outside the engine (panel, bench files, journal, status line)
    counts that way; the engine's own list index is ``hand - 1``. ``legal`` the decisions
    legal now; ``to`` who receives a card ("seat 1 hand 1", "dealer", "hole", "burn");
    ``draw`` the values an RNG draw must give; ``why`` one human line.
    """

    kind: str
    seat: int | None = None
    hand: int | None = None
    legal: tuple[str, ...] = ()
    to: str | None = None
    why: str = ""
    draw: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def to_json(self) -> ExpectingView:
        out: ExpectingView = {
            "kind": self.kind, "seat": self.seat, "hand": self.hand,
            "legal": list(self.legal), "to": self.to, "why": self.why,
        }
        if self.draw:
            out["draw"] = {k: list(v) for k, v in self.draw.items()}
        return out


def expecting_of(t: Round, tilt: Tilt | None) -> Expecting:
    """What the round ``t`` waits for (``tilt``: the tilt in force, for its resolve)."""
    need = t.need
    if need == P.CARD:
        return _card(t)
    if need == P.DECISION:
        if t.phase == P.INSURANCE:
            s = t.players[t.turn_seat]
            return Expecting(
                P.DECISION, s.number, 1, ("insurance", "no-insurance"),
                why=f"seat {s.number}: insurance? (up to {dollars(insurance_offer(s))})",
            )
        s = t.players[t.turn_seat]
        h = s.hands[t.turn_hand]
        legal = tuple(legal_now(t, s, h))
        number = t.turn_hand + 1
        return Expecting(
            P.DECISION, s.number, number, legal,
            why=f"seat {s.number}, hand {number}: decide ({', '.join(legal)})",
        )
    if need == P.WAGERS:
        return Expecting(P.WAGERS, why="place wagers, then DEAL")
    if need == P.DRAW:
        req = t.draw_request
        return Expecting(P.DRAW, why=req.why if req else "RNG draw",
                         draw=dict(req.values) if req else {})
    if need == P.SHOE:
        return Expecting(P.SHOE, why="load a freshly shuffled shoe, then press SHUFFLE")
    if need == P.CONSOLE:
        why = "tilt: " + (tilt.public()["resolve"] if tilt else "press DEAL or VOID")
        return Expecting(P.CONSOLE, why=why)
    return Expecting(P.NOTHING, why="nothing")


def _card(t: Round) -> Expecting:
    phase = t.phase
    if phase == P.NEW_SHOE:
        return Expecting(P.CARD, to="burn", why=f"burn {t.burn_left} card(s) of the new shoe")
    if phase == P.DEALER:
        return Expecting(P.CARD, to="dealer", why="a card to the dealer")
    if phase == P.DEALING:
        target = t.deal_order[t.deal_pos]
        if target is t.dealer:
            to = "dealer" if t.deal_pos < len(t.deal_order) - 1 else "hole"
            why = "a card to the dealer" if to == "dealer" else "the dealer's hole card"
            return Expecting(P.CARD, to=to, why=why)
        n = len(t.players)
        s = t.players[t.deal_pos % (n + 1)]
        return Expecting(P.CARD, s.number, 1, to=f"seat {s.number} hand 1",
                         why=f"a card to seat {s.number}")
    s = t.players[t.turn_seat]
    number = t.turn_hand + 1
    return Expecting(P.CARD, s.number, number, to=f"seat {s.number} hand {number}",
                     why=f"a card to seat {s.number}, hand {number}")
