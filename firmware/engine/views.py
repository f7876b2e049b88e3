"""The public and private views of a table, as JSON-ready dicts (docs/interfaces.md).

The public view is all a player may see: an unrevealed hole card is ``"??"`` and the
dealer's total counts only the up card. The private view holds everything (hole card,
shoe composition, audit record, cursors) for the journal and the audit; replay and the
property tests compare private views to prove two tables are in the same state.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, cast

from etgcore.view import (
    SCHEMA,
    DealerView,
    HandView,
    MechanismFields,
    PrivateView,
    PublicView,
    SeatView,
    TiltView,
)
from firmware.engine.cards import CODE

if TYPE_CHECKING:
    from firmware.engine.bank import Bank
    from firmware.engine.expect import Expecting
    from firmware.engine.hand import Hand, Seat
    from firmware.engine.round import Round
    from firmware.engine.rules import Rules
    from firmware.engine.shoe import Shoe
    from firmware.engine.tilts import Tilt, Tilts


class Table(Protocol):
    """What the views read of a game (:class:`firmware.engine.game.Game` satisfies it;
    the game calls these views, so they name only its parts, not the game)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def bench(self) -> bool: ...
    @property
    def round(self) -> Round: ...
    @property
    def bank(self) -> Bank: ...
    @property
    def shoe(self) -> Shoe: ...
    @property
    def tilts(self) -> Tilts: ...
    @property
    def tilt(self) -> Tilt | None: ...
    def expecting(self) -> Expecting: ...


def _hand(h: Hand) -> HandView:
    out: HandView = {
        **h.to_json(),
        "wager": h.lammer_amount if h.lammer else h.wager,
        "lammer": h.lammer,
        "double": h.double,
        "double_times": h.double_times,
        "double_lammer": h.double_lammer,
        "status": h.status,
        "result": h.result,
        "paid": h.paid,
        "bingo_hit": False,
    }
    if h.extra:  # HandExtras' keys and the side wagers' results by their declared names
        out = cast(HandView, {**out, **h.extra})
    return out


def _seat(t: Table, s: Seat) -> SeatView:
    wagers = {"blackjack": s.wager, "insurance": s.insurance}
    for m in t.rules.mechanisms:
        for name in m.wager_names:
            wagers[name] = 0
    wagers.update(s.side)
    out: SeatView = {
        "seat": s.number,
        "credits": s.credits,
        "playing": bool(s.hands) or bool(s.wager),
        "wagers": wagers,
        "hands": [_hand(h) for h in s.hands],
        "net": s.net,
    }
    if s.net is not None:  # settled: what went back per wager kind (a side wager's win)
        out["returned"] = dict(s.returned_by_kind)
    return out


def _dealer(t: Round, reveal: bool) -> DealerView:
    d = t.dealer
    shown = t.hole_revealed or reveal
    return {
        **d.to_json(hide_second=not shown),
        "hole_revealed": t.hole_revealed,
        "blackjack": d.is_blackjack if t.hole_revealed else None,
        "bust": d.total > 21 if t.hole_revealed else False,
    }


def _tilt(t: Table) -> TiltView | None:
    return t.tilt.public() if t.tilt else None


def public_view(t: Table) -> PublicView:
    """What a player may see (the UI only ever gets this)."""
    rules = t.rules
    r = t.round
    view: PublicView = {
        "schema": SCHEMA,
        "variant": rules.variant,
        "title": rules.title,
        "limits": {
            "seats": t.bank.nseats, "min_wager": rules.min_wager, "max_wager": rules.max_wager,
            "wager_unit": rules.wager_unit,
        },
        "round": r.round_no,
        "phase": r.phase,
        "expecting": t.expecting().to_json(),
        "dealer": _dealer(r, reveal=False),
        "seats": [_seat(t, s) for s in t.bank.seats],
        "bingo": None,
        "tilt": _tilt(t),
        "shoe": {
            "decks": t.shoe.decks, "cards_dealt": t.shoe.cards_dealt,
            "cut_card_seen": t.shoe.cut_card_seen,
            "needs_new_shoe": r.need == "new-shoe" or not t.shoe.in_play,
        },
    }
    for hook in r.hooks.public_fields:
        fields: MechanismFields = hook(r.view)
        view.update(fields)
    return view


def _plain(v: Any) -> Any:
    if isinstance(v, Fraction):
        return f"{v.numerator}/{v.denominator}"
    if isinstance(v, tuple | list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def _where(t: Round, h: Hand | None) -> Any:
    if h is None:
        return None
    if h is t.dealer:
        return "dealer"
    for s in t.players:
        for i, x in enumerate(s.hands):
            if x is h:
                return [s.number, i + 1]  # hands count from 1 outside the engine
    return "?"


def private_view(t: Table) -> PrivateView:
    """Everything, hole card included: for the journal, the audit and state comparison."""
    r = t.round
    tilt = t.tilts.tilt
    # the same keys in the same order as the public view's, the dealer's hole shown
    return {**public_view(t), "dealer": _dealer(r, reveal=True), "private": {
        "rules": t.rules.to_json(),
        "bench": t.bench,
        "shoe": t.shoe.to_json(),
        "house": t.bank.house,
        "funded": t.bank.funded,
        "dealer_blackjack": r.dealer_bj,
        "players": [s.number for s in r.players],
        "seat_stakes": {s.number: s.staked for s in t.bank.seats if s.staked},
        "insurance_decided": [s.number for s in r.players if s.insurance_decided],
        "cursor": {
            "deal_pos": r.deal_pos, "turn_seat": r.turn_seat, "turn_hand": r.turn_hand,
            "card_to": _where(r, r.card_to), "doubling": r.doubling,
            "post_double": r.post_double, "burn_left": r.burn_left, "need": r.need,
        },
        "tilt": tilt.to_json() if tilt else None,
        "draw_request": {k: list(v) for k, v in r.draw_request.values.items()}
        if r.draw_request else None,
        "draws": dict(r.draws),
        "extra": _plain(r.extra),
        "audit": _plain(r.audit),
        "hole_card": CODE[r.dealer.cards[1]] if len(r.dealer.cards) > 1 else None,
    }}
