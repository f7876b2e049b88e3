"""The table's side of the floor link, without a broker: the outbox is written in the
journal's own transaction, hides unrevealed cards, catches up on records journaled without
it; floor commands are verified; a disable waits for the round in play."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "table"))

from table_helpers import FakePanel, FakeShoe, card, press

from firmware.engine import load_rules
from firmware.floor.certs import FLOOR_SERVICE, identity, make_floor_certs
from firmware.floor.command_auth import CommandVerifier, new_command
from firmware.journal import Entry, EventCode, Journal
from firmware.journal.messages import public_round
from firmware.journal.outbox import Outbox, records_wire
from firmware.table.controller import Controller
from firmware.table.recovery import open_table


def _outbox_rows(path: Path) -> list[tuple[int, int, str, dict]]:
    db = sqlite3.connect(path)
    try:
        return [(n, s, k, json.loads(p)) for n, s, k, p in db.execute(
            "SELECT n, seq, kind, payload FROM floor_outbox ORDER BY n")]
    finally:
        db.close()


def test_outbox_rows_are_written_with_their_records_or_not_at_all(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    commits: list[int] = []
    box = Outbox(j, on_commit=lambda: commits.append(1))
    j.append_one("input", {"input": {"type": "card", "card": "AS"}})  # never reported
    ev = j.append_one("event", {"seat": 1, "cents": 500}, code=int(EventCode.CREDITS_IN),
                      meters={("credits_in", 0, ""): 500, ("credits", 0, ""): 500})
    rows = _outbox_rows(j.path)
    assert [(s, k) for _n, s, k, _p in rows] == [(ev.seq, "event"), (ev.seq, "meters")]
    assert rows[1][3]["meters"]["credits_in"] == 500 and commits == [1]

    class Boom(Exception):
        pass

    def explode(db: sqlite3.Connection, records: list, meters: dict) -> None:
        raise Boom

    j.add_stager(explode)
    with pytest.raises(Boom):
        j.append_one("event", {"x": 1}, code=int(EventCode.TILT))
    assert len(_outbox_rows(j.path)) == 2  # the failed transaction left neither
    assert j.last_seq == ev.seq and [r.seq for r in j.records()] == [1, 2]
    assert [m.n for m in box.pending(0)] == [1, 2]
    box.acknowledged(1)
    assert [m.n for m in box.pending(0)] == [2] and box.last_n() == 2
    assert json.loads(box.pending(0)[0].wire())["n"] == 2


def test_catch_up_reports_what_was_journaled_without_the_outbox(tmp_path: Path) -> None:
    j = Journal(tmp_path / "j.sqlite")
    j.append_one("event", {"mode": "bench"}, code=int(EventCode.POWER_UP))
    j.append([Entry("round", {"round": 1, "state": "settled", "stakes": {}, "returns": {},
                              "dealer": {"cards": ["KS", "7H"], "hole_revealed": True}}, 1)],
             {("games_played", 0, ""): 1})
    box = Outbox(j)
    assert box.catch_up() == 4  # event, round, chain, and the meters once
    assert box.catch_up() == 0
    kinds = [k for _n, _s, k, _p in _outbox_rows(j.path)]
    assert kinds == ["event", "round", "chain", "meters"]


def test_records_go_out_in_order_several_to_a_message(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from firmware.floor import link

    j = Journal(tmp_path / "j.sqlite")
    box = Outbox(j)
    for i in range(1, 4):
        j.append([Entry("round", {"round": i, "state": "settled", "stakes": {},
                                  "returns": {}, "dealer": {"cards": ["KS", "7H"]}}, i)],
                 {("games_played", 0, ""): 1})
    pending = box.pending(0)
    wire = json.loads(records_wire(pending))
    assert [(r["n"], r["kind"]) for r in wire] == [
        (n, k) for n, k in zip(range(1, 10), ["round", "meters", "chain"] * 3, strict=True)]
    assert all(r["seq"] == r["n"] // 3 + (r["n"] % 3 > 0) for r in wire)
    assert link._by_size(pending) == pending
    monkeypatch.setattr(link, "PUBLISH_BYTES", len(pending[0].payload) + 30)
    assert link._by_size(pending) == pending[:1]  # a record larger than the budget goes alone
    monkeypatch.setattr(link, "PUBLISH_BYTES", 1)
    assert link._by_size(pending) == pending[:1]


def test_a_voided_rounds_unrevealed_hole_card_never_leaves(tmp_path: Path) -> None:
    rec = {"round": 3, "state": "voided",
           "dealer": {"cards": ["KS", "7H"], "total": 17, "soft": False,
                      "hole_revealed": False}}
    out = public_round(rec)
    assert out["dealer"]["cards"] == ["KS", "??"] and out["dealer"]["total"] is None
    assert rec["dealer"]["cards"] == ["KS", "7H"]  # the journal's record is untouched


def test_commands_must_be_signed_by_the_floor_for_this_table_once(tmp_path: Path) -> None:
    make_floor_certs(tmp_path, ["T1", "T2"])
    floor = identity(tmp_path, FLOOR_SERVICE)
    v = CommandVerifier("T1", floor.cert, tmp_path / "ca.pem")
    good = new_command("T1", "disable", "pit", floor.key.read_bytes())
    assert v.refusal(good) is None
    v.remember(good["id"])
    assert "replay" in str(v.refusal(good))
    assert "addressed to table 'T2'" in str(v.refusal(
        new_command("T2", "disable", "pit", floor.key.read_bytes())))
    forged = new_command("T1", "disable", "pit", identity(tmp_path, "T2").key.read_bytes())
    assert "bad signature" in str(v.refusal(forged))
    tampered = dict(new_command("T1", "enable", "pit", floor.key.read_bytes()),
                    action="disable")
    assert "bad signature" in str(v.refusal(tampered))
    old = new_command("T1", "disable", "pit", floor.key.read_bytes())
    assert "stale" in str(v.refusal(old, now=time.time() + 3600))
    assert v.refusal({"action": "disable"}) == "not a signed floor command"


def _command(action: str) -> dict:
    return {"command": {"id": action + "-1", "action": action, "by": "pit", "table": "T1"},
            "refusal": None}


def test_disable_waits_for_the_round_in_play_then_refuses_wagers(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, load_rules("blackjack", {}), 2, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel())
    ctl.request("credits-in", {"seat": 1, "cents": 100_000})
    for h in [*press(None, "SHUFFLE"), card("2C"), *press(1, "BET"), *press(None, "DEAL")]:
        ctl.handle(h)
    assert ctl.game.phase == "dealing"
    ok, msg = ctl.request("floor", _command("disable"))
    assert ok and "after the round" in msg and not ctl.floor_gate.closed
    for h in [card("TS"), card("6H"), card("9D"), card("TC"), *press(1, "STAND"), card("5S")]:
        ctl.handle(h)
    assert ctl.game.phase == "settled" and ctl.floor_gate.closed
    codes = [r.code for r in journal.records(kinds=["event"])]
    assert codes.index(EventCode.FLOOR_COMMAND) < codes.index(EventCode.TABLE_CLOSED)
    before = journal.last_seq
    for h in press(1, "BET"):
        ctl.handle(h)
    assert not [r for r in journal.records(since_seq=before, kinds=["input"])]
    assert ctl.panel.lit.get(1, set()) == set()  # type: ignore[union-attr]
    ok, _ = ctl.request("floor", {"command": {"id": "x"}, "refusal": "bad signature"})
    assert not ok
    ctl.request("floor", _command("enable"))
    assert not ctl.floor_gate.closed
    for h in press(1, "BET"):
        ctl.handle(h)
    assert [r for r in journal.records(since_seq=before, kinds=["input"])]
    # the journal remembers: a closed table stays closed across a restart
    from firmware.table.floor_gate import FloorGate

    assert FloorGate.from_journal(journal).closed is False
    ctl.request("floor", dict(_command("disable"), command={"id": "2", "action": "disable"}))
    assert FloorGate.from_journal(journal).closed is ctl.floor_gate.closed
