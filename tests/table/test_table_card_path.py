"""A card takes the short way (docs/architecture.md, "Where a card goes"): the device
reports become steps the controller carries out, and whether a card was due is the
game's verdict alone."""

from __future__ import annotations

import inspect
from pathlib import Path

from table_helpers import card, press
from test_table_controller import make, play

from drivers.shoe.reports import CardDealt
from firmware.engine import Game, load_rules
from firmware.engine.inputs import Card
from firmware.journal import EventCode
from firmware.table.devices.device_reports import DeviceReports
from firmware.table.devices.shoe_control import ShoeControl
from firmware.table.pending_double import DoubleChooser
from firmware.table.steps import Log, Take


def _codes(ctl: object, since: int) -> list[tuple[str, int | None]]:
    journal = ctl.journal  # type: ignore[attr-defined]
    return [(r.kind, r.code) for r in journal.records(since_seq=since)]


def test_a_card_report_is_one_step_whatever_the_game_expects() -> None:
    """The reports do not ask the game whether a card is due: a card is always the same
    step, and the game decides (docs/architecture.md)."""
    reports = DeviceReports(ShoeControl(None), DoubleChooser())
    waiting = Game(load_rules("blackjack"), seats=1)  # no shoe: no card is due
    report = CardDealt("AS", raw="$01,CRD,AS*0000")
    want = [Take(Card.of("AS"), "shoe",
                 if_paused={"UNEXPECTED": Log(EventCode.SHOE_UNEXPECTED_CARD,
                                              {"raw": "$01,CRD,AS*0000"})})]
    assert reports.on_shoe(report, waiting, now=0.0) == want
    dealing = Game(load_rules("blackjack"), seats=1, shoe_in_play=True)
    assert reports.on_shoe(report, dealing, now=0.0) == want


def test_device_reports_hold_no_way_back_into_the_controller() -> None:
    """No host: the collaborator returns what to do instead of calling its caller."""
    params = inspect.signature(DeviceReports).parameters
    assert list(params) == ["shoe", "doubles"]


def test_an_unexpected_card_is_recorded_after_the_game_paused_on_it(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    since = ctl.journal.last_seq
    play(ctl, card("9H"))  # betting: no card is due
    assert ctl.game.phase == "tilt" and ctl.game.tilt is not None
    assert ctl.game.tilt.code == "UNEXPECTED"
    got = _codes(ctl, since)
    assert got == [("input", None), ("event", int(EventCode.TILT)),
                   ("event", int(EventCode.SHOE_UNEXPECTED_CARD))]
    last = list(ctl.journal.records(since_seq=since))[-1]
    assert last.body == {"raw": "$01,CRD,9H*0000"}


def test_a_due_card_writes_its_input_and_nothing_else(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    play(ctl, press(1, "BET"), press(None, "DEAL"))
    since = ctl.journal.last_seq
    play(ctl, card("TS"))
    assert _codes(ctl, since) == [("input", None)]


def test_shuffle_records_the_new_shoe_only_when_the_game_takes_it(tmp_path: Path) -> None:
    """SHUFFLE's record and the shoe's NEW follow the game's acceptance."""
    ctl, sh, _ = make(tmp_path)
    play(ctl, press(1, "BET"), press(None, "DEAL"))  # a round in play: SHUFFLE refused
    sent = len(sh.sent)
    since = ctl.journal.last_seq
    play(ctl, press(None, "SHUFFLE"))
    assert ("NEW", "6") not in sh.sent[sent:]
    assert int(EventCode.SHOE_NEW) not in [c for _, c in _codes(ctl, since)]

