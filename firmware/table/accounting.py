"""A finished round's money per seat and wager kind, for the meters, and its record.

Stakes are read from the seat (the Blackjack wager of every hand, each Double Down wager,
insurance and the paired or optional wagers a mechanism placed); lammers are not money
and count nothing. What went back comes from the engine's ledger per kind. Whatever the
breakdown, each seat's totals are the engine's own ``staked`` and ``returned``, so the
meters always add up to the credits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.engine import phases as P
from firmware.journal.meters import MeterKey, round_deltas

if TYPE_CHECKING:
    from firmware.engine.game import Game

SeatKinds = dict[int, dict[str, int]]


def round_accounts(t: Game) -> tuple[SeatKinds, SeatKinds]:
    """``(stakes, returns)`` per seat number and wager kind of the round just finished."""
    stakes: SeatKinds = {}
    returns: SeatKinds = {}
    for seat in t.seats:
        if not seat.staked:
            continue
        kinds: dict[str, int] = {}

        def add(kind: str, cents: int, into: dict[str, int] = kinds) -> None:
            if cents:
                into[kind] = into.get(kind, 0) + cents

        for h in seat.hands:
            if not h.lammer:
                add("blackjack", h.wager)
            if h.double and not h.double_lammer:
                add("double", h.double)
        add("insurance", seat.insurance)
        for name, cents in seat.side.items():
            add(name, cents)
        if not seat.hands:  # voided before the deal: only the wagers placed
            kinds = {}
            add("blackjack", seat.wager)
            for name, cents in seat.side.items():
                add(name, cents)
        rest = seat.staked - sum(kinds.values())
        add("blackjack", rest)  # never expected; keeps totals exact if a kind was missed
        stakes[seat.number] = kinds
        back = dict(seat.returned_by_kind) if seat.net is not None else {}
        missing = seat.returned - sum(back.values())
        if missing:
            back["blackjack"] = back.get("blackjack", 0) + missing
        returns[seat.number] = {k: v for k, v in back.items() if v}
    return stakes, returns


def round_record(t: Game, final: int, first_seq: int | None) -> tuple[dict[str, Any],
                                                                     dict[MeterKey, int]]:
    """The journal's record of the round that just ended (the ``final``-th recorded) and
    the meter changes it justifies, written together in one transaction."""
    voided = t.phase == P.VOIDED
    priv = t.private_view()
    stakes, returns = round_accounts(t)
    record = {
        "final": final,
        "round": t.round_no,
        "state": "voided" if voided else "settled",
        "variant": t.rules.variant,
        "limits": priv["limits"],  # the table's seats and wager limits (recall screen)
        "dealer": priv["dealer"],
        "seats": [s for s in priv["seats"] if s["seat"] in stakes],
        "bingo": priv.get("bingo"),
        "stakes": {str(k): v for k, v in stakes.items()},
        "returns": {str(k): v for k, v in returns.items()},
        "audit": priv["private"]["audit"],
        "first_seq": first_seq,
    }
    return record, round_deltas(stakes, returns, voided=voided)
