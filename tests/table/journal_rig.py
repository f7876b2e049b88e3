"""A journal as a table writes it: rounds auto-played through the controller (inputs,
round records, meters, checkpoints), credit transfers in and out, then closed."""

from __future__ import annotations

import shutil
from pathlib import Path

from firmware.bench.engine_player import EnginePlayer
from firmware.engine import load_rules
from firmware.engine.inputs import CreditsIn, Input
from firmware.journal import Journal
from firmware.table.controller import Controller
from firmware.table.recovery import open_table


def table_on(path: Path, variant: str = "blackjack", checkpoint_rounds: int = 2,
             seats: int = 2) -> Controller:
    journal = Journal(path)
    rec = open_table(journal, load_rules(variant, {}), seats, True)
    return Controller(rec.game, journal, finals_recorded=rec.finals_recorded,
                      round_first_seq=rec.round_first_seq, epoch_seq=rec.epoch_seq,
                      checkpoint_rounds=checkpoint_rounds)


def play(ctl: Controller, rounds: int, seed: int = 1) -> None:
    """``rounds`` rounds on every seat, credits topped up by attendant transfers."""
    def apply(inp: Input) -> None:
        if isinstance(inp, CreditsIn):
            ok, msg = ctl.request("credits-in", {"seat": inp.seat, "cents": inp.amount})
        else:
            ok, msg = ctl.take(inp, "bench"), str(inp)
        assert ok, msg

    seats = tuple(range(1, ctl.game.nseats + 1))
    player = EnginePlayer(ctl.game, seats=seats, seed=seed, apply=apply)
    if ctl.game.shoe.in_play:  # a shoe of an earlier player: this one shuffles its own
        player._new_shoe()
    player.play(rounds)


def played_journal(where: Path, rounds: int = 6, cash_out: int = 700,
                   checkpoint_rounds: int = 500) -> Path:
    """A closed journal of ``rounds`` rounds and one cash-out of ``cash_out`` cents."""
    path = where / "j.sqlite"
    ctl = table_on(path, checkpoint_rounds=checkpoint_rounds)
    play(ctl, rounds)
    ok, msg = ctl.request("credits-out", {"seat": 1, "cents": cash_out, "id": "OUT-1"})
    assert ok, msg
    ctl.journal.close()
    return path


def copy_journal(path: Path, to: Path) -> Path:
    """The journal and its side files (head, secret) copied into ``to``."""
    to.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", ".head", ".key"):
        src = path.with_name(path.name + suffix)
        if src.exists():
            shutil.copy2(src, to / src.name)
    return to / path.name
