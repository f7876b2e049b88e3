"""A finished round's money per seat and wager kind, for the meters, and its record.

Read from the engine's own ledger and nothing else: the Bank books every stake with its
kind as it is placed (the Blackjack wager of each hand, each Double Down wager, insurance,
the paired and optional wagers) and settlement books every return with its kind; a void
returns each stake as its own kind. Lammers are not money and are not booked. So each
seat's stakes add up to the engine's ``staked`` and its returns to ``returned``, which
are what moved its credits: the meters cannot drift from the game. (They once did: this
module rebuilt the stakes from the hands itself, and a void before the deal, when a seat
has no hands yet, created money in the meters.) The journal's meter proof
(:mod:`firmware.table.meter_proof`) replays every round and compares its record with
this ledger.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from firmware.journal.meters import MeterKey, round_deltas

if TYPE_CHECKING:
    from firmware.engine.game import Game
    from firmware.engine.hand import Seat

SeatKinds = dict[int, dict[str, int]]


def seat_accounts(seat: Seat) -> tuple[dict[str, int], dict[str, int]]:
    """``(stakes, returns)`` of one seat by wager kind, from the engine's ledger."""
    stakes = {k: v for k, v in sorted(seat.staked_by_kind.items()) if v}
    returns = {k: v for k, v in sorted(seat.returned_by_kind.items()) if v}
    return stakes, returns


def round_voided(t: Game) -> bool:
    """The round just ended was voided (also while a tilt after it pauses the table)."""
    if t.phase == "tilt" and t.tilt is not None:
        return t.tilt.resume_phase == "voided"
    return t.phase == "voided"


def round_accounts(t: Game) -> tuple[SeatKinds, SeatKinds]:
    """``(stakes, returns)`` per seat number and wager kind of the round just finished
    (every seat that staked anything)."""
    stakes: SeatKinds = {}
    returns: SeatKinds = {}
    for seat in t.seats:
        if seat.staked:
            stakes[seat.number], returns[seat.number] = seat_accounts(seat)
    return stakes, returns


def round_record(t: Game, final: int, first_seq: int | None
                 ) -> tuple[dict[str, Any], dict[MeterKey, int]]:
    """The journal's record of the round just ended (the ``final``-th of the epoch; its
    first input ``first_seq``) and its meter changes."""
    voided = round_voided(t)
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
