"""The controller: journal before engine, commands from `expecting`, rounds and meters."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import FakePanel, FakeShoe, card, press, shoe

from drivers.shoe.reports import ShoeFault
from firmware.engine import Game, load_rules
from firmware.engine.inputs import CreditsIn
from firmware.journal import Journal, JournalError
from firmware.journal.meters import summarize
from firmware.table.controller import Controller, PanelHappening
from firmware.table.recovery import open_table, replay


def make(tmp_path: Path, bench: bool = True, **over: object) -> tuple[Controller, FakeShoe,
                                                                      FakePanel]:
    rules = load_rules("blackjack", dict(over))
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 2, bench)
    sh, pa = FakeShoe(), FakePanel()
    ctl = Controller(rec.game, journal, shoe=sh, panel=pa)
    ctl.request("credits-in", {"seat": 1, "cents": 100_000})
    ctl.request("credits-in", {"seat": 2, "cents": 100_000})
    for h in press(None, "SHUFFLE"):
        ctl.handle(h)
    ctl.handle(card("2C"))  # the burn card (baseline §1.3)
    return ctl, sh, pa


def play(ctl: Controller, *happenings: object) -> None:
    for h in happenings:
        if isinstance(h, list):
            for x in h:
                ctl.handle(x)
        else:
            ctl.handle(h)  # type: ignore[arg-type]


def test_shuffle_sends_new_and_burn_opens_betting(tmp_path: Path) -> None:
    ctl, sh, pa = make(tmp_path)
    assert ("NEW", "6") in sh.sent
    assert ctl.game.phase == "betting"
    assert sh.gate == "LCK"  # no card due while betting (shoe ICD §5)
    assert pa.lit[1] == {"BET"}


def test_a_round_through_the_controller(tmp_path: Path) -> None:
    ctl, sh, pa = make(tmp_path)
    play(ctl, press(1, "BET"), press(None, "DEAL"))
    assert ctl.game.phase == "dealing" and sh.gate == "ULK"
    play(ctl, card("TS"), card("6H"), card("9D"), card("TC"))
    assert ctl.game.expecting().kind == "decision"
    assert sh.gate == "LCK" and pa.lit[1] == {"HIT", "STAND", "DOUBLE", "SURRENDER"}
    play(ctl, press(1, "STAND"))
    assert ctl.game.expecting().kind == "card" and sh.gate == "ULK"  # the dealer draws
    play(ctl, card("5S"))  # dealer 6+10+5 = 21
    assert ctl.game.phase == "settled"
    rounds = list(ctl.journal.records(kinds=["round"]))
    assert len(rounds) == 1 and rounds[0].body["seats"][0]["net"] == -500
    m = summarize(ctl.journal.meters())
    assert m["games_played"] == 1 and m["wagered"] == 500 and m["paid"] == 0
    assert m["balanced"] and m["credits"] == 200_000 - 500


def test_every_input_is_journaled_before_it_takes_effect(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    applied: list[int] = []
    table = ctl.game

    class Spy:
        """The table, but noting the journal's last record whenever an input is applied."""

        def __getattr__(self, name: str) -> object:
            return getattr(table, name)

        def apply(self, inp: object) -> None:
            applied.append(ctl.journal.last_seq)
            table.apply(inp)  # type: ignore[arg-type]

    ctl.game = Spy()  # type: ignore[assignment]
    before = ctl.journal.last_seq
    play(ctl, press(1, "BET"))
    assert applied and applied[0] == before + 1  # the record exists when apply runs
    last = list(ctl.journal.records(kinds=["input"]))[-1]
    assert last.body["input"] == {"type": "wager", "seat": 1, "amount": 500}


def test_journal_failure_stops_the_table(tmp_path: Path) -> None:
    ctl, sh, _ = make(tmp_path)

    def broken(*a: object, **k: object) -> None:
        raise JournalError("disk gone")

    ctl.journal.append_one = broken  # type: ignore[method-assign,assignment]
    play(ctl, press(1, "BET"))
    assert ctl.failure and "journal" in ctl.failure
    assert ctl.game.seats[0].wager == 0  # nothing took effect
    assert sh.gate == "LCK" and ("LED", "RED") in sh.sent


def test_fault_tilts_logs_and_deal_resumes(tmp_path: Path) -> None:
    ctl, sh, _ = make(tmp_path)
    play(ctl, press(1, "BET"), press(None, "DEAL"), card("TS"))
    play(ctl, shoe(ShoeFault("MISREAD", raw="$03,ERR,MISREAD*9DF2")))
    assert ctl.game.phase == "tilt" and sh.gate == "LCK" and ("LED", "RED") in sh.sent
    codes = [r.code for r in ctl.journal.records(kinds=["event"])]
    assert 210 in codes and 200 in codes  # shoe fault, tilt (ICD §6: logged)
    play(ctl, press(None, "DEAL"))
    assert ctl.game.phase == "dealing" and 201 in [
        r.code for r in ctl.journal.records(kinds=["event"])]


def test_void_returns_wagers_and_records_the_round(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    play(ctl, press(1, "BET"), press(None, "DEAL"), card("TS"), card("6H"))
    play(ctl, press(None, "VOID"))
    assert ctl.game.phase == "voided"
    rec = list(ctl.journal.records(kinds=["round"]))[-1].body
    assert rec["state"] == "voided"
    m = summarize(ctl.journal.meters())
    assert m["games_voided"] == 1 and m["wagered"] == 0 and m["credits"] == 200_000


def test_stuck_key_tilts(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    ctl.handle(PanelHappening("stuck", "HIT", 2))
    assert ctl.game.phase == "tilt" and ctl.game.tilt is not None
    assert "stuck" in ctl.game.tilt.public()["cause"]


def test_forced_draw_is_a_bench_power(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path, bench=False)
    ok, msg = ctl.request("force-draw", {"values": {"bingo_target": 21}})
    assert not ok and "production" in msg


def test_pending_double_counts_presses(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    t = [0.0]
    ctl.clock = lambda: t[0]
    ctl.rules.double_times = (1, 2, 3, 4)  # as Split to Double's 1x-4x (§ 633b.26(e)(2)(i))
    play(ctl, press(1, "BET"), press(None, "DEAL"))
    play(ctl, card("5S"), card("6H"), card("6D"), card("TC"))
    play(ctl, press(1, "DOUBLE"), press(1, "DOUBLE"))
    assert ctl.doubles.pending is not None and ctl.doubles.pending.times == 2
    t[0] = 5.0
    ctl.tick()
    assert ctl.doubles.pending is None
    assert ctl.game.seats[0].hands[0].double == 1000  # 2x the 500 initial wager


def test_recovery_replays_to_the_same_state(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    play(ctl, press(1, "BET"), press(2, "BET"), press(2, "BET"), press(None, "DEAL"))
    play(ctl, card("TS"), card("9H"), card("6H"), card("8D"), card("7C"))
    live = ctl.game.private_view()
    ctl.journal.close()
    again = replay(Journal(tmp_path / "j.sqlite"))
    assert again is not None and again.in_round
    assert again.game.private_view() == live


def test_changed_rules_refused_mid_round_allowed_between(tmp_path: Path) -> None:
    from etgcore.errors import UserError

    ctl, _, _ = make(tmp_path)
    play(ctl, press(1, "BET"), press(None, "DEAL"), card("TS"))
    ctl.journal.close()
    j = Journal(tmp_path / "j.sqlite")
    with pytest.raises(UserError, match="round is in progress"):
        open_table(j, load_rules("blackjack", {"decks": 8}), 2, True)
    rec = open_table(j, load_rules("blackjack"), 2, True)
    ctl2 = Controller(rec.game, j, shoe=FakeShoe(), panel=FakePanel())
    play(ctl2, press(None, "VOID"))
    new = open_table(j, load_rules("blackjack", {"decks": 8}), 2, True)
    assert new.new_epoch and new.game.seats[0].credits == 100_000  # credits carried


def test_credits_in_offline_and_meters(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    m = summarize(ctl.journal.meters())
    assert m["credits_in"] == 200_000 and m["balanced"]
    ok, _ = ctl.request("credits-out", {"seat": 1, "cents": 5_000})
    assert ok
    m = summarize(ctl.journal.meters())
    assert m["credits_out"] == 5_000 and m["credits"] == 195_000 and m["balanced"]
    ok, why = ctl.request("credits-out", {"seat": 2, "cents": 5 * 10**6})
    assert not ok and "cannot pay out" in why


def test_table_is_a_table() -> None:
    assert isinstance(Game(load_rules("blackjack"), seats=1), Game)
    CreditsIn(1, 1)


def test_stuck_key_released_clears_the_fault(tmp_path: Path) -> None:
    ctl, _, _ = make(tmp_path)
    ctl.handle(PanelHappening("stuck", "HIT", 2))
    assert ctl.game.tilt is not None and ctl.game.tilt.active
    ctl.handle(PanelHappening("release", "HIT", 2))
    assert ctl.game.tilt is not None and not ctl.game.tilt.active
    play(ctl, press(None, "DEAL"))
    assert ctl.game.phase != "tilt"


def test_rng_failure_tilts_the_round_that_needs_a_draw(tmp_path: Path) -> None:
    rules = load_rules("blackjack")
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 1, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel())
    ctl.rng_failure = "RNG failure: health test"
    ctl.draw({"bingo_target": (12, 21)})
    tilt = ctl.game.tilt
    assert ctl.game.phase == "tilt" and tilt is not None and "RNG" in tilt.public()["cause"]
    codes = [r.code for r in journal.records(kinds=["event"])]
    assert 502 in codes


def test_push22_is_placed_with_insurance_during_betting(tmp_path: Path) -> None:
    """Free Bet's optional Push 22 wager (baseline §4; § 672a.2(b)(4)): the panel ICD has
    no button for it, so INSURANCE — never meaningful during betting — places it: the
    table minimum, then a unit per press, lit only beside a Blackjack wager."""
    rules = load_rules("free-bet", {"push22": True})
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 6, True)
    pa = FakePanel()
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=pa)
    ctl.request("credits-in", {"seat": 1, "cents": 100_000})
    play(ctl, press(None, "SHUFFLE"), card("2C"))
    assert "INSURANCE" not in pa.lit[1]  # no Blackjack wager yet
    play(ctl, press(1, "INSURANCE"))
    assert not ctl.game.seats[0].side
    play(ctl, press(1, "BET"))
    assert "INSURANCE" in pa.lit[1]
    play(ctl, press(1, "INSURANCE"), press(1, "INSURANCE"))
    assert ctl.game.seats[0].side == {"push22": 600}
    play(ctl, press(1, "CLEAR"))
    assert not ctl.game.seats[0].side and ctl.game.seats[0].wager == 0


def test_no_optional_wager_no_insurance_lamp_while_betting(tmp_path: Path) -> None:
    ctl, _, pa = make(tmp_path)
    play(ctl, press(1, "BET"))
    assert "INSURANCE" not in pa.lit[1]


def test_gate_is_reasserted_while_a_card_is_due_and_none_comes(tmp_path: Path) -> None:
    """A ULK lost to a shoe restart must not leave the table waiting on a locked gate."""
    ctl, sh, _ = make(tmp_path)
    t = [100.0]
    ctl.clock = lambda: t[0]
    play(ctl, press(1, "BET"), press(None, "DEAL"))
    assert sh.gate == "ULK"
    before = sh.sent.count(("ULK",))
    t[0] += 1.0
    ctl.tick()
    assert sh.sent.count(("ULK",)) == before  # not yet
    t[0] += 1.5
    ctl.tick()
    assert sh.sent.count(("ULK",)) == before + 1
    play(ctl, press(None, "VOID"))  # no card due: no more ULK
    t[0] += 10
    ctl.tick()
    assert sh.gate == "LCK"


def test_timers_are_deadlines_the_idle_controller_has_none(tmp_path: Path) -> None:
    """The run loop sleeps on its inbox until next_deadline(): None while nothing is
    timed (an idle table), the confirm time of a pending double, the gate re-assert."""
    ctl, _, _ = make(tmp_path)
    t = [50.0]
    ctl.clock = lambda: t[0]
    assert ctl.next_deadline() is None  # betting open, nothing timed: sleep until a happening
    ctl.rules.double_times = (1, 2, 3, 4)
    play(ctl, press(1, "BET"), press(None, "DEAL"))
    gate = ctl.next_deadline()
    assert gate is not None and gate > t[0]  # the gate re-assert while a card is due
    play(ctl, card("5S"), card("6H"), card("6D"), card("TC"))
    play(ctl, press(1, "DOUBLE"))
    assert ctl.doubles.pending is not None
    assert ctl.next_deadline() == ctl.doubles.pending.since + 1.5


def test_the_run_loop_wakes_for_a_deadline_without_a_happening(tmp_path: Path) -> None:
    """A pending double is placed when its deadline passes, with nothing in the inbox."""
    import threading
    import time

    ctl, _, _ = make(tmp_path)
    ctl.rules.double_times = (1, 2, 3, 4)
    play(ctl, press(1, "BET"), press(None, "DEAL"))
    play(ctl, card("5S"), card("6H"), card("6D"), card("TC"))
    play(ctl, press(1, "DOUBLE"))
    assert ctl.doubles.pending is not None
    ctl.doubles.pending.since = time.monotonic() - 1.4  # due 0.1 s from now
    worker = threading.Thread(target=ctl.run, kwargs={"until": lambda: ctl.doubles.pending
                                                      is None}, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive() and ctl.doubles.pending is None


def test_the_view_goes_out_after_the_commit_and_before_the_head_file(tmp_path: Path) -> None:
    """A card's view is published once its record is committed (one sync), and the head
    file names that record as soon as the controller has published it (docs/table.md)."""
    from firmware.journal.head import read_head

    ctl, _, _ = make(tmp_path)
    play(ctl, press(1, "BET"), press(None, "DEAL"))
    journal = ctl.journal
    seen: list[tuple[int, int]] = []

    def publish(view: object) -> None:
        head = read_head(journal.head_path, journal.key)
        assert head is not None
        seen.append((journal.last_seq, head.seq))

    ctl.publish = publish
    ctl.handle(card("TS"))
    head = read_head(journal.head_path, journal.key)
    assert seen and seen[-1][0] == journal.last_seq  # the card's record: committed first
    assert seen[-1][1] < journal.last_seq  # its head not yet written when the view left
    assert head is not None and head.seq == journal.last_seq  # ... and right after


def test_a_published_view_is_never_changed_afterwards(tmp_path: Path) -> None:
    """The screen keeps parts of each view it drew to compare with the next one (the
    renderer's region keys, ui/renderer.py): nothing may change a view once it is out,
    through a whole round and into the next one."""
    import copy

    ctl, _, _ = make(tmp_path)
    out: list[tuple[object, object]] = []
    ctl.publish = lambda view: out.append((view, copy.deepcopy(view)))
    play(ctl, press(1, "BET"), press(2, "BET"), press(None, "DEAL"))
    play(ctl, card("8S"), card("8H"), card("9D"), card("8C"), card("TC"), card("6H"))
    play(ctl, press(1, "SPLIT"), card("3D"), press(1, "DOUBLE"), card("9S"),
         card("TS"), press(1, "STAND"), press(2, "STAND"), card("KD"))
    assert ctl.game.phase == "settled"
    play(ctl, press(1, "BET"), press(None, "DEAL"), card("AS"))
    assert len(out) > 20
    changed = [i for i, (view, then) in enumerate(out) if view != then]
    assert changed == []
