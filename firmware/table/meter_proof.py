"""The meters proven against the game: the journal's inputs replayed through the engine.

The journal's own verification (firmware.journal.verify) proves the records authentic and
the meters equal to what the round records and transfers add up to. That cannot see a
round record that says the wrong thing — a record that books a stake as returned when
the game did not return it (issue 34: a void before the deal created money exactly so).
This proof replays every input through the engine (the one replay path,
:mod:`firmware.engine.replay`) and compares, with nothing of the live table's code in
between:

- **every round record** with the round the replay ended: its number, settled or voided,
  and per seat the stakes and the returns by wager kind, from the engine's own ledger;
- **every checkpoint** (firmware.journal.checkpoint) with the replay at that point: the
  engine's whole state (:mod:`firmware.engine.snapshot`), the round count and the meters;
- **every epoch**: it begins between rounds, with no round record owed, carrying exactly
  the credits the seats held;
- **the meters** at the end with what the replay's rounds and transfers add up to, and
  each seat's credits meter with the game's credits (plus what is at stake in a round
  not yet over, minus the result of a round whose record is still owed).

At most one round may end without its record, and only the last: a power cut between a
round's last input and its record; the next start writes it (firmware.table.service.run).

``full=True`` (``etg audit verify``) replays from record 1. Every start replays from the
last checkpoint, restoring the engine from it; recovery (:mod:`firmware.table.recovery`)
uses the same walk to rebuild the table. Any difference refuses the start, as tampering
does: the table writes nothing into a journal whose meters it cannot prove.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from firmware.engine.game import Game
from firmware.engine.inputs import CreditsIn, CreditsOut, input_from_json
from firmware.engine.rejected import Rejected
from firmware.engine.replay import apply_recorded, new_game
from firmware.engine.rules import rules_from_json
from firmware.engine.snapshot import SnapshotError, canonical, restore, snapshot
from firmware.journal import Journal, Record
from firmware.journal.checkpoint import checkpoint_meters, is_checkpoint, last_checkpoint
from firmware.journal.meters import (
    MeterKey,
    add_deltas,
    credit_deltas,
    meters_difference,
    round_deltas,
)
from firmware.journal.store import VerifyResult
from firmware.table.accounting import round_accounts, round_voided
from firmware.table.errors import TableError
from firmware.table.round_state import in_round, round_ended

log = logging.getLogger("etg.table.proof")


class ProofFailed(TableError):
    """The journal does not prove its meters (the message says where and why)."""

    def __init__(self, seq: int | None, problem: str) -> None:
        super().__init__(problem)
        self.seq = seq
        self.problem = problem


@dataclass
class RoundEnd:
    """A round as the replay ended it: what its record must say."""

    round_no: int
    state: str
    stakes: dict[str, dict[str, int]]
    returns: dict[str, dict[str, int]]
    net: dict[int, int]

    @classmethod
    def of(cls, game: Game) -> RoundEnd:
        stakes, returns = round_accounts(game)
        return cls(game.round_no, "voided" if round_voided(game) else "settled",
                   {str(k): v for k, v in stakes.items()},
                   {str(k): v for k, v in returns.items()},
                   {s: sum(returns.get(s, {}).values()) - sum(stakes[s].values())
                    for s in stakes})

    def deltas(self) -> dict[MeterKey, int]:
        return round_deltas({int(k): v for k, v in self.stakes.items()},
                            {int(k): v for k, v in self.returns.items()},
                            voided=self.state == "voided")


@dataclass
class Walk:
    """The journal replayed up to a point (the table as recovery rebuilds it)."""

    game: Game | None = None
    epoch_seq: int = 0
    inputs: int = 0  # replayed by this walk
    finals: int = 0  # rounds ended in the epoch
    finals_recorded: int = 0  # round records written in the epoch
    round_first_seq: int | None = None
    pending: RoundEnd | None = None
    meters: dict[MeterKey, int] = field(default_factory=dict)  # what the replay adds up to
    since: int = 1
    checkpoints: int = 0
    last_checkpoint: int = 0  # the last checkpoint compared (or started from)
    was_final: bool = False
    prove: bool = True
    epoch_wants_checkpoint: int | None = None


def game_from_epoch(body: dict[str, Any]) -> Game:
    ep = body["epoch"]
    carry = {int(seat): int(cents) for seat, cents in ep.get("carry", {}).items()}
    return new_game(rules_from_json(ep["rules"]), seats=int(ep["seats"]),
                    bench=bool(ep["bench"]), carry=carry)


def checkpoint_part(game: Game, epoch_seq: int, rounds: int) -> dict[str, Any]:
    """The table's part of a checkpoint (the journal adds the meters)."""
    return {"epoch": epoch_seq, "rounds": rounds, "game": snapshot(game)}


def walk(journal: Journal, *, full: bool, prove: bool = True,
         until: int | None = None) -> Walk:
    """Replay ``journal``: from record 1 (``full``) or from its last checkpoint, to the
    end or to record ``until``. With ``prove``, every comparison of the module docstring
    (ProofFailed at the first difference); without, only the table is rebuilt
    (recovery)."""
    w = Walk(prove=prove)
    start = None if full else last_checkpoint(journal.records(kinds=["meta"],
                                                              newest_first=True))
    if start is not None:
        _from_checkpoint(journal, w, start)
    for r in journal.records(since_seq=w.since - 1 if start is None else start.seq,
                             kinds=["input", "round", "meta"], upto_seq=until):
        _take(w, r)
    if w.epoch_wants_checkpoint is not None:
        _fail(w, w.epoch_wants_checkpoint, "the epoch has no checkpoint")
    return w


def prove(journal: Journal, *, full: bool, until: int | None = None) -> VerifyResult:
    """The proof of the module docstring as a verification result. ``until``: only up
    to that record, a checkpoint (the part of the journal a start did not prove): the
    walk ends by comparing the game with it."""
    try:
        with journal.reading():  # records and meters of one moment, a table writing or not
            newest = next(journal.records(newest_first=True, upto_seq=until), None)
            w = walk(journal, full=full, until=until)
            if until is None:
                _final_checks(journal, w)
            elif w.last_checkpoint != until:
                raise ProofFailed(until, f"record {until} is not a checkpoint the replay "
                                  "reaches")
    except ProofFailed as exc:
        return VerifyResult(False, journal.last_seq, exc.seq, exc.problem)
    except (KeyError, TypeError, ValueError, SnapshotError) as exc:
        return VerifyResult(False, journal.last_seq, None,
                            f"a record the replay needs is malformed: {exc!r}")
    return VerifyResult(True, newest.seq if newest else 0, since=w.since)


def start_proof(journal: Journal) -> VerifyResult:
    """What every start runs on the verified journal before writing: the proof from the
    last checkpoint (firmware.journal.opening.open_for_table takes it)."""
    return prove(journal, full=False)


def _from_checkpoint(journal: Journal, w: Walk, cp: Record) -> None:
    part = cp.body["checkpoint"]
    epoch = journal.record(int(part["epoch"]))
    if epoch is None or "epoch" not in epoch.body:
        raise ProofFailed(cp.seq, f"checkpoint {cp.seq} names record {part['epoch']} as "
                          "its epoch, which is not one")
    w.game = restore(game_from_epoch(epoch.body), part["game"])
    w.epoch_seq, w.since = epoch.seq, cp.seq
    w.finals = w.finals_recorded = int(part["rounds"])
    w.meters = checkpoint_meters(cp)
    w.last_checkpoint = cp.seq
    w.was_final = round_ended(w.game)


def _fail(w: Walk, seq: int | None, problem: str) -> None:
    if w.prove:
        raise ProofFailed(seq, problem)


def _take(w: Walk, r: Record) -> None:
    if w.epoch_wants_checkpoint is not None and not is_checkpoint(r):
        _fail(w, w.epoch_wants_checkpoint, "the epoch has no checkpoint")
        w.epoch_wants_checkpoint = None
    if r.kind == "meta":
        if "epoch" in r.body:
            _epoch(w, r)
        elif is_checkpoint(r):
            _checkpoint(w, r)
    elif r.kind == "input":
        _input(w, r)
    elif r.kind == "round":
        _round(w, r)


def _epoch(w: Walk, r: Record) -> None:
    old = w.game
    if old is not None:
        if w.pending is not None:
            _fail(w, r.seq, f"a new epoch begins while the record of round "
                  f"{w.pending.round_no} is still owed")
        if in_round(old):
            _fail(w, r.seq, f"a new epoch begins while round {old.round_no} is in play")
        carry = {int(k): int(v) for k, v in r.body["epoch"].get("carry", {}).items()}
        held = {s.number: s.credits for s in old.seats if s.credits}
        if carry != held:
            _fail(w, r.seq, f"the epoch carries credits {carry} but the seats held {held}")
    w.game = game_from_epoch(r.body)
    w.epoch_seq, w.finals, w.finals_recorded = r.seq, 0, 0
    w.pending, w.round_first_seq = None, None
    w.was_final = round_ended(w.game)
    w.epoch_wants_checkpoint = r.seq


def _checkpoint(w: Walk, r: Record) -> None:
    w.epoch_wants_checkpoint = None
    w.checkpoints += 1
    w.last_checkpoint = r.seq
    if not w.prove:
        return
    part = r.body["checkpoint"]
    if w.game is None or int(part["epoch"]) != w.epoch_seq:
        _fail(w, r.seq, f"the checkpoint names epoch {part['epoch']}, not {w.epoch_seq}")
    assert w.game is not None
    if w.pending is not None or int(part["rounds"]) != w.finals_recorded:
        _fail(w, r.seq, f"the checkpoint counts {part['rounds']} rounds, the replay "
              f"{w.finals_recorded} recorded{' and one owed' if w.pending else ''}")
    if canonical(snapshot(w.game)) != canonical(part["game"]):
        _fail(w, r.seq, "the checkpoint's game is not the game the inputs before it make")
    why = meters_difference(checkpoint_meters(r), {k: v for k, v in w.meters.items() if v},
                            "the replay before it adds up to")
    if why:
        _fail(w, r.seq, f"the checkpoint's {why}")


def _input(w: Walk, r: Record) -> None:
    game = w.game
    if game is None:
        _fail(w, r.seq, "an input before any epoch")
        return
    w.inputs += 1
    if w.round_first_seq is None and r.body.get("source") != "attendant":
        w.round_first_seq = r.seq  # as the controller marks it live (transfers open no round)
    inp = input_from_json(r.body["input"])
    err = apply_recorded(game, inp)
    if err is not None and not isinstance(err, Rejected):  # refused live too
        log.warning("replaying record %d raised %s: %s", r.seq, type(err).__name__, err)
    if err is None and isinstance(inp, CreditsIn | CreditsOut):
        add_deltas(w.meters, credit_deltas(inp.seat, inp.amount if isinstance(
            inp, CreditsIn) else -inp.amount))
    final = round_ended(game)
    if final and not w.was_final:
        if w.pending is not None:
            _fail(w, r.seq, f"round {game.round_no} ended here, but the record of round "
                  f"{w.pending.round_no} was never written")
        w.pending = RoundEnd.of(game)
        w.finals += 1
    w.was_final = final


def _round(w: Walk, r: Record) -> None:
    end, w.pending = w.pending, None
    w.finals_recorded += 1
    w.round_first_seq = None
    if end is None:
        _fail(w, r.seq, f"a record of round {r.body.get('round')}, but no round ended "
              "before it (recorded twice, or without play)")
        return
    add_deltas(w.meters, end.deltas())
    if not w.prove:
        return
    b = r.body
    said = (b.get("round"), b.get("state"), b.get("stakes"), b.get("returns"))
    played = (end.round_no, end.state, end.stakes, end.returns)
    if said != played:
        what = ("round", "state", "stakes", "returns")
        diff = next(i for i in range(4) if said[i] != played[i])
        _fail(w, r.seq, f"the record of round {end.round_no} says {what[diff]} "
              f"{said[diff]!r} but the game's replay gives {played[diff]!r}")


def _final_checks(journal: Journal, w: Walk) -> None:
    have = {k: v for k, v in journal.meters().items() if v}
    want = {k: v for k, v in w.meters.items() if v}
    why = meters_difference(have, want, "the engine's replay of the journal gives")
    if why:
        raise ProofFailed(None, why)
    game = w.game
    owed = w.pending.net if w.pending is not None else {}
    seats = {s for (n, s, _w) in have if n == "credits" and s}
    for s in game.seats if game is not None else []:
        seats.add(s.number)
    for number in sorted(seats):
        meter = have.get(("credits", number, ""), 0)
        live = 0
        if game is not None and number <= game.nseats:
            seat = game.seats[number - 1]
            live = seat.credits + game.seat_stake(seat) - owed.get(number, 0)
        if meter != live:
            raise ProofFailed(None, f"seat {number}'s credits meter is {meter} but the game "
                              f"replayed from the journal holds {live}")
