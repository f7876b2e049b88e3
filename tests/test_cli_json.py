"""`--json` wherever a script reads the output: one JSON document on stdout that
``json.loads`` takes (also when there is nothing to report, also for a failed check), and
human output that writes money in dollars (issue 20, point 7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etgcore.money import dollars
from firmware.cli import main
from firmware.table.recall import format_round


def _json(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 0) -> object:
    assert main(argv) == code, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_config_check_json_says_ok_or_what_is_wrong(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    doc = _json(capsys, ["config", "check", "--json", "--set", "table.variant=bingo"])
    assert doc == {"ok": True, "source": "table.toml with --set", "variant": "bingo",
                   "mode": doc["mode"]} and doc["mode"] in ("bench", "production")  # type: ignore[index]
    bad = _json(capsys, ["config", "check", "--json", "--set", "table.variant=nope"], code=2)
    assert bad["ok"] is False and bad["key"] == "table.variant"  # type: ignore[index]
    assert "nope" in bad["problem"]  # type: ignore[index]


def test_strategy_json_is_the_chart_the_text_prints(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    assert main(["strategy", "--variant", "blackjack"]) == 0
    text = capsys.readouterr().out
    doc = _json(capsys, ["strategy", "--variant", "blackjack", "--json"])
    tables = {t["title"]: t for t in doc["tables"]}  # type: ignore[index]
    two, more = "Hard totals (two cards)", "Hands of three or more cards (by total)"
    assert set(tables) == {two, "Soft totals (two cards)", "Pairs", more}
    hard = {r["hand"]: r["actions"] for r in tables[two]["rows"]}
    assert tables[two]["up_cards"][-1] == "A"
    assert hard["17"] == ["S"] * 10 and hard["8"] == ["H"] * 10
    row16 = next(line for line in text.splitlines() if line.startswith("16 "))
    assert row16.split()[1:] == hard["16"]  # the same chart as the printed table
    # six decks: a two-card 16 against a 10 surrenders, a three-card one stands
    assert hard["16"][8] == "Rh"
    assert {r["hand"]: r["actions"] for r in tables[more]["rows"]}["16"][8] == "S"
    bingo = _json(capsys, ["strategy", "--variant", "bingo", "--bingo", "17:10", "--json"])
    assert bingo["bingo"] == [17, 10]  # type: ignore[index]


def test_audit_verify_and_recall_json_on_a_journal(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    j = tmp_path / "j.sqlite"
    assert main(["credits", "add", "--journal", str(j), "--seat", "1", "--cents", "250",
                 "--id", "T-1"]) == 0
    assert "+$2.50" in capsys.readouterr().out
    doc = _json(capsys, ["audit", "verify", "--journal", str(j), "--json"])
    assert doc["ok"] is True and doc["records"] > 0 and doc["first_bad"] is None  # type: ignore[index]
    assert _json(capsys, ["recall", "--journal", str(j), "--json"]) == []
    assert main(["meters", "--journal", str(j)]) == 0
    meters = capsys.readouterr().out
    assert "$2.50" in meters and "cents" not in meters
    assert _json(capsys, ["meters", "--journal", str(j), "--json"])["credits_in"] == 250  # type: ignore[index]


def test_recall_text_writes_every_amount_in_dollars() -> None:
    rec = {"round": 6, "variant": "blackjack", "state": "settled", "ended": "2026-12-01",
           "dealer": {"cards": ["TH", "7C"], "total": 17},
           "stakes": {"1": {"blackjack": 500, "insurance": 250}},
           "seats": [{"seat": 1, "net": -750, "hands": [
               {"cards": ["9D", "7S"], "total": 16, "result": "lose", "paid": 0,
                "double": 0}]}],
           "inputs": [{"input": {"type": "wager", "seat": 1, "amount": 500}, "source": "panel"},
                      {"input": {"type": "decision", "seat": 1, "hand": 1,
                                 "action": "insurance", "times": 1, "amount": 250},
                       "source": "panel"}]}
    text = "\n".join(format_round(rec))
    assert "seat 1: net -$7.50, staked blackjack $5, insurance $2.50" in text
    assert "paid $0" in text and "wager: seat 1 $5  [panel]" in text
    assert "decision: seat 1 hand 1 insurance $2.50  [panel]" in text
    assert "{" not in text and "500" not in text  # no dict reprs, no cents


def test_one_money_format() -> None:
    assert [dollars(c) for c in (0, 250, 500, 123450, -500)] == [
        "$0", "$2.50", "$5", "$1,234.50", "-$5"]
    assert dollars(500, sign=True) == "+$5" and dollars(500, exact=True) == "$5.00"


def test_bench_run_json_has_every_file(capsys: pytest.CaptureFixture[str]) -> None:
    scenarios = Path(__file__).resolve().parent / "scenarios" / "blackjack"
    doc = _json(capsys, ["bench", "run", "--mode", "engine", str(scenarios), "--json"])
    files = sorted(str(p) for p in scenarios.glob("*.toml"))
    assert sorted(r["path"] for r in doc["results"]) == files  # type: ignore[index]
    assert (doc["mode"], doc["failed"], doc["passed"]) == ("engine", 0, len(files))  # type: ignore[index]
