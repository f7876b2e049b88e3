"""`make run` again after a stop in the middle of a round (issue 38, item 7).

The demo's shoe is a new simulator at every start: it can never be the shoe the round
was dealt from, so the window used to open on a red "TABLE PAUSED · SHOE" tilt, and the
headless demo voided the round a few seconds later without a word. Now the demo's dealer
takes the shoe out of play and voids the round at once (journaled, source "demo"), and
one line says so and what to do next; the table then just waits for a new shoe."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import FakePanel, FakeShoe, card, press

from firmware.config import load_config
from firmware.engine import load_rules
from firmware.journal import EventCode, Journal
from firmware.table.controller import Controller
from firmware.table.recovery import open_table
from firmware.table.service.run import RunOptions, _power_up


def _stopped_mid_round(path: Path, reason: str | None) -> None:
    """A 1-seat table stopped with a card due (``reason`` None: the power failed)."""
    journal = Journal(path)
    rec = open_table(journal, load_rules("blackjack", {}), 1, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel())
    ctl.request("credits-in", {"seat": 1, "cents": 100_000})
    for h in [*press(None, "SHUFFLE"), card("2C"), *press(1, "BET"), *press(None, "DEAL"),
              card("TS")]:
        ctl.handle(h)
    assert ctl.game.expecting().kind == "card" and ctl.game.round_no == 1
    if reason is not None:
        journal.append_one("event", {"reason": reason}, code=int(EventCode.POWER_DOWN))
    journal.close()


@pytest.mark.parametrize(("window", "reason"), [
    (True, "stopped by SIGINT"), (False, "stopped by SIGTERM"), (True, None)])
def test_the_demo_voids_the_interrupted_round_and_says_so_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], window: bool,
        reason: str | None) -> None:
    path = tmp_path / "j.sqlite"
    _stopped_mid_round(path, reason)
    cfg = load_config(None, [f'journal.path="{path}"', "table.seats=1",
                             "display.enabled=false"])
    journal = Journal(path)
    try:
        up = _power_up(cfg, RunOptions(seats=1, demo=True, auto_play=not window,
                                       headless=True, quiet=False),
                       load_rules("blackjack", {}), journal)
        game = up.ctl.game
        assert game.phase == "voided" and game.tilt is None
        assert game.expecting().kind == "new-shoe" and not game.shoe.in_play
        assert game.bank.seats[0].credits == 100_000  # the wager is back
        sources = [r.body["source"] for r in journal.records(kinds=["input"])][-2:]
        assert sources == ["demo", "demo"]  # the SHOE fault and the VOID, journaled
        if up.table_rng is not None:
            up.table_rng.close()
    finally:
        journal.close()
    lines = capsys.readouterr().out.splitlines()
    said = [line for line in lines if "interrupted by the last stop" in line]
    why = reason or "the power failed or the table was killed"
    then = ("load a new shoe: press F9 (SHUFFLE)" if window
            else "the automatic dealer loads a new shoe")
    assert said == [f"round 1, interrupted by the last stop ({why}), is voided and its "
                    f"wagers returned; {then}"]


def test_a_real_table_holds_the_interrupted_round_in_a_tilt_that_names_the_stop(
        tmp_path: Path) -> None:
    """Not the demo: the round waits for the dealer (DEAL resumes, VOID returns it), and
    the tilt says how the table stopped, not to check the layout (that is for a power
    failure, where nobody knows what the dealer did meanwhile)."""
    path = tmp_path / "j.sqlite"
    _stopped_mid_round(path, "stopped by SIGTERM")
    cfg = load_config(None, [f'journal.path="{path}"', "table.seats=1",
                             "display.enabled=false"])
    journal = Journal(path)
    try:
        up = _power_up(cfg, RunOptions(seats=1, headless=True, quiet=True),
                       load_rules("blackjack", {}), journal)
        tilt = up.ctl.game.tilt.public()  # type: ignore[union-attr]
        if up.table_rng is not None:
            up.table_rng.close()
    finally:
        journal.close()
    assert tilt["code"] == "STOPPED"
    assert tilt["cause"] == "the table was stopped during the round: stopped by SIGTERM"
