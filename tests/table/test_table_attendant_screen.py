"""Issue 45, finding 12: the attendant screen on the table's own display.

Behind the attendant key (the console's RECALL key switch, held) the table shows the game
recall, then, a page per DEAL press, the meters of the table and of each seat under
§ 605a.5's names, the last events and the configuration in force, as a commercial ETG
does; before, they were read only with `etg` commands. The table service builds the pages
(firmware/table/service/attendant.py) and the UI only draws them; nothing secret (the
hole card, the RNG seed, a key or its path) is on any page.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from table_helpers import FakePanel, FakeShoe, card, press, shoe

from drivers.shoe.reports import ProtocolFault
from firmware.config import load_config
from firmware.engine import load_rules
from firmware.journal import EventCode, Journal
from firmware.table.controller import Controller, PanelHappening
from firmware.table.recovery import open_table
from firmware.table.service.attendant import (
    EVENT_FIELDS,
    METERS,
    PAGE_ROWS,
    attendant_pages,
    events_page,
    meters_page,
    no_cards,
    wager_meters_page,
)

SEED = "5eed0001020304050607080910111213"


def _table(tmp_path: Path, publish: Any = None, on_round: Any = None
           ) -> tuple[Controller, Journal]:
    rules = load_rules("blackjack", {})
    journal = Journal(tmp_path / "j.sqlite")
    rec = open_table(journal, rules, 3, True)
    ctl = Controller(rec.game, journal, shoe=FakeShoe(), panel=FakePanel(), publish=publish,
                     on_round=on_round)
    ctl.request("credits-in", {"seat": 1, "cents": 100_000})
    ctl.request("credits-in", {"seat": 3, "cents": 50_000})
    return ctl, journal


def _play(ctl: Controller, steps: list[Any]) -> None:
    for h in steps:
        ctl.handle(h)


def _settled_round(ctl: Controller) -> None:
    """Seats 1 and 3 wager the minimum; seat 1 stands on 20 and wins, seat 3 on 18 loses
    to the dealer's 19."""
    steps = [*press(None, "SHUFFLE"), card("2C"), *press(1, "BET"), *press(3, "BET"),
             *press(None, "DEAL")]
    steps += [card(c) for c in ("TS", "9D", "KH", "TC", "9S", "9H")]  # dealer K 9: 19
    steps += [*press(1, "STAND"), *press(3, "STAND")]
    _play(ctl, steps)
    assert ctl.game.phase == "settled", ctl.game.phase


def _staked(ctl: Controller) -> int:
    return sum(s.wager for s in ctl.game.seats)


def _cfg(tmp_path: Path, *extra: str) -> Any:
    return load_config(None, [f"journal.path={tmp_path / 'j.sqlite'}", "table.seats=3",
                              f"journal.key_path={tmp_path / 'secret.key'}", *extra])


def _all_text(pages: list[Any]) -> str:
    return "\n".join(" | ".join([p["title"], *p["columns"], p["note"],
                                 *(" ".join(r) for r in p["rows"])]) for p in pages)


def test_finding_12_meters_per_seat_and_table_under_605a5_names(tmp_path: Path) -> None:
    ctl, journal = _table(tmp_path)
    _settled_round(ctl)
    wager = ctl.game.rules.min_wager
    m = meters_page(journal, 3)
    assert m["columns"] == ["meter", "Table", "Seat 1", "Seat 2", "Seat 3"]
    rows = {r[0]: r[1:] for r in m["rows"]}
    assert list(rows) == [label for _n, label in METERS]
    for name in ("Coin in", "Coin out", "Attendant paid cancelled credits"):  # § 605a.5(d)
        assert name in rows
    assert rows["Games played"] == ["1", "1", "0", "1"]

    def cents(amount: int) -> str:
        return f"${amount // 100:,}.{amount % 100:02d}"

    assert rows["Coin in"] == [cents(2 * wager), cents(wager), "$0.00", cents(wager)]
    assert rows["Coin out"] == [cents(2 * wager), cents(2 * wager), "$0.00", "$0.00"]
    assert rows["Credits transferred in by the attendant"] == [
        "$1,500.00", "$1,000.00", "$0.00", "$500.00"]
    assert rows["Credits on the seat"][1] == cents(100_000 + wager)
    assert rows["Credits on the seat"][3] == cents(50_000 - wager)
    ctl.request("credits-out", {"seat": 3, "cents": 10_000})
    rows = {r[0]: r[1:] for r in meters_page(journal, 3)["rows"]}
    assert rows["Attendant paid cancelled credits"] == ["$100.00", "$0.00", "$0.00", "$100.00"]
    assert "jackpots" in meters_page(journal, 3)["note"]  # the one the table never has
    assert "The meters balance" in meters_page(journal, 3)["note"]
    by_kind = {r[0]: r[1:] for r in wager_meters_page(journal)["rows"]}
    assert by_kind == {"blackjack": [cents(2 * wager), cents(2 * wager), "$0.00"]}


def test_finding_12_meters_that_do_not_balance_say_so(tmp_path: Path) -> None:
    _ctl, journal = _table(tmp_path)
    journal._db.execute("UPDATE meters SET value = value + 1 WHERE name = 'credits' "
                        "AND seat = 0")  # a meter someone changed behind the table's back
    assert meters_page(journal, 3)["note"].startswith(
        "ATTENTION: the meters do not balance for the table")


def test_finding_12_last_events_newest_first_without_a_card(tmp_path: Path) -> None:
    ctl, journal = _table(tmp_path)
    _settled_round(ctl)
    # a CRD frame the shoe garbled: its raw text holds the card it read
    ctl.handle(shoe(ProtocolFault("CRD needs one card", raw="$07,CRD,AH,X*1234")))
    ev = events_page(journal)
    assert ev["columns"] == ["time", "code", "event", "round", "detail"]
    codes = [int(r[1]) for r in ev["rows"]]
    seqs = [r.seq for r in journal.records(kinds=["event"], newest_first=True)]
    assert len(codes) == min(len(seqs), 14)
    assert codes[:2] == [EventCode.TILT, EventCode.SHOE_PROTOCOL]  # the tilt it made: newest
    assert ev["rows"][1][2] == "shoe-protocol" and "CRD needs one card" in ev["rows"][1][4]
    assert "AH" not in _all_text([ev]) and "raw" not in _all_text([ev])
    assert "raw" not in EVENT_FIELDS
    assert no_cards("misread AH, then TS; AS IS") == "misread ··, then ··; ·· IS"


def test_finding_12_no_secret_on_any_page_mid_round(tmp_path: Path) -> None:
    """The key turned while the hole card is down: on no page the hole card, the seed, the
    journal's key path; the configuration still names the game and the table."""
    ctl, journal = _table(tmp_path)
    steps = [*press(None, "SHUFFLE"), card("2C"), *press(1, "BET"), *press(None, "DEAL")]
    steps += [card(c) for c in ("TS", "9D", "8H", "7C")]  # hole card 7C
    _play(ctl, steps)
    assert ctl.game.expecting().kind == "decision"
    cfg = _cfg(tmp_path, "table.mode=bench", f"rng.seed_hex={SEED}")
    pages = attendant_pages(journal, cfg, ctl.game.rules, "9.9.9")
    text = _all_text(pages)
    assert "7C" not in text and "9D" not in text  # no card at all, the hole card least
    assert SEED not in text and "secret.key" not in text and "key_path" not in text
    assert "fixed seed (bench)" in text  # that one is set is said, never the seed
    config = [p for p in pages if p["title"].startswith("Configuration")]
    rows = {r[0]: r[1] for p in config for r in p["rows"]}
    assert rows["software"] == "9.9.9"
    assert re.fullmatch(r"[0-9a-f]{64}", rows["configuration fingerprint"])
    assert rows["game"].startswith("Blackjack (blackjack), 58 Pa. Code")
    assert rows["table"].endswith("3 seats, bench mode")
    assert rows["rules.min_wager"].startswith("$")
    assert all(len(p["rows"]) <= PAGE_ROWS for p in pages)
    assert len(config) >= 2 and config[0]["title"] == f"Configuration (1/{len(config)})"


def test_finding_12_floor_broker_without_its_password(tmp_path: Path) -> None:
    from firmware.table.service.attendant import configuration_rows

    cfg = _cfg(tmp_path)
    floor = type("Floor", (), {"broker": "mqtt://pit:hunter2@floor.local:8883"})()
    port = type("Shoe", (), {"port": "rfc2217://bench:s3cret@10.0.0.9:4000"})()
    shown = type("Cfg", (), {**{k: getattr(cfg, k) for k in (
        "table", "panel", "display", "rng", "source")}, "floor": floor, "shoe": port})()
    rows = dict(map(tuple, configuration_rows(shown, load_rules("blackjack", {}))))
    assert rows["floor broker"] == "floor.local:8883"
    assert rows["shoe"] == "10.0.0.9:4000"
    assert "hunter2" not in str(rows) and "s3cret" not in str(rows)


def test_finding_12_deal_steps_the_pages_while_the_key_is_held(tmp_path: Path) -> None:
    seen: list[Any] = []
    ctl, _journal = _table(tmp_path, publish=seen.append)
    _play(ctl, [*press(None, "SHUFFLE"), card("2C"), *press(1, "BET")])
    ctl.handle(PanelHappening("press", "RECALL", None))  # the key turned (and held)
    assert seen[-1]["controller"]["recall"] and seen[-1]["controller"]["attendant_page"] == 0
    for k in (1, 2, 3):
        _play(ctl, press(None, "DEAL"))
        assert seen[-1]["controller"]["attendant_page"] == k
    assert ctl.game.phase == "betting"  # DEAL paged the screen: no round was dealt
    staked = _staked(ctl)
    _play(ctl, press(3, "BET"))  # the screen covers the table: no seat plays blind
    assert _staked(ctl) == staked
    ctl.handle(PanelHappening("release", "RECALL", None))
    assert seen[-1]["controller"]["attendant_page"] == 0
    _play(ctl, press(3, "BET"))
    assert _staked(ctl) > staked
    _play(ctl, press(None, "DEAL"))  # the key back: DEAL deals again
    assert ctl.game.phase != "betting"


@pytest.mark.parametrize("size", [(1920, 1080), (800, 480)])
def test_finding_12_the_screen_draws_every_row_the_service_sent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]) -> None:
    """End to end: the key turned on a table with a window (SDL's dummy driver); DEAL
    pages from the game recall to the meters, the events, the configuration and back."""
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    import pygame

    from firmware.table.service import ui_bridge
    from ui.renderer import new_surface
    from ui.state import resolve_screen

    pygame.display.init()
    pygame.font.init()
    monkeypatch.setattr(ui_bridge, "display_available", lambda: True)
    cfg = _cfg(tmp_path, "display.enabled=true", f"display.width={size[0]}",
               f"display.height={size[1]}")
    rules = load_rules("blackjack", {})
    bridge = ui_bridge.UiBridge(cfg, rules, headless=False)
    runner = bridge._runner
    ctl, journal = _table(tmp_path, publish=bridge.publish, on_round=bridge.round_done)
    bridge.attendant_reads(journal, "9.9.9")
    _settled_round(ctl)
    surf = new_surface(size)
    ctl.handle(PanelHappening("press", "RECALL", None))
    runner.step(surf, 1.0)
    assert resolve_screen(runner.view, runner.state) == "recall"  # first: the game recall
    pages = runner.state.attendant_pages
    assert [p["title"] for p in pages][:3] == ["Meters (§ 605a.5)", "Meters by wager (table)",
                                               "Last events"]
    for k, expected in enumerate(pages, start=1):
        _play(ctl, press(None, "DEAL"))
        runner.step(surf, 1.0 + k)
        texts = runner.renderer.model.texts("overlay")
        assert f"ATTENDANT  ·  {expected['title']}" in texts
        for row in expected["rows"]:  # every row drawn, none cut off at the foot
            assert all(cell in texts for cell in row if cell), (row, texts)
        assert any(f"page {k + 1} of {len(pages) + 1}" in t for t in texts)
    _play(ctl, press(None, "DEAL"))  # round again to the game recall
    runner.step(surf, 20.0)
    assert resolve_screen(runner.view, runner.state) == "recall"
    ctl.handle(PanelHappening("release", "RECALL", None))
    runner.step(surf, 21.0)
    assert runner.state.attendant_pages == () and resolve_screen(runner.view, runner.state) != (
        "attendant")


def test_finding_12_the_pages_go_over_a_closed_tables_screen() -> None:
    """The meters of a table the floor closed are read on its screen; the closed screen
    is back at the game recall's place in the round and when the key is released."""
    from ui.state import ScreenState, resolve_screen

    pages = ({"title": "Meters (§ 605a.5)", "columns": [], "rows": [], "note": ""},)
    closed = {"kind": "floor", "message": "The floor has closed this table."}
    assert resolve_screen(None, ScreenState(failure=closed, attendant_pages=pages,
                                            attendant_page=1)) == "attendant"
    assert resolve_screen(None, ScreenState(failure=closed, attendant_pages=pages,
                                            attendant_page=2)) == "failure"
    assert resolve_screen(None, ScreenState(failure=closed)) == "failure"
