"""A finished round's money per seat and wager kind, for the meters.

Stakes are read from the seat (the Blackjack wager of every hand, each Double Down wager,
insurance and the paired or optional wagers a mechanism placed); lammers are not money
and count nothing. What went back comes from the engine's ledger per kind. Whatever the
breakdown, each seat's totals are the engine's own ``staked`` and ``returned``, so the
meters always add up to the credits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
