"""The `etg strategy`, `etg par` and `etg rtp` commands."""

from __future__ import annotations

import json

import pytest

from firmware.cli import main


def test_par_json_has_the_required_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["par", "--variant", "blackjack", "--set", "decks=0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("house_edge", "house_edge_total", "method", "rules"):
        assert key in out
    assert out["rules"]["decks"] == 0
    assert 0.003 < out["house_edge"] < 0.006


def test_strategy_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", "--variant", "blackjack", "--set", "rules.decks=2"]) == 0
    out = capsys.readouterr().out
    assert "Hard totals" in out and "2 x 52-card decks" in out


def test_rtp_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "--rounds", "500", "--seed", "1", "--jobs", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rounds"] == 500 and "house_edge" in out and "stderr" in out


@pytest.mark.parametrize("argv", [
    ["par", "--set", "nosuch=1"],
    ["par", "--set", "decks=9"],
    ["par", "--set", "table.seats=3"],
    ["rtp", "--rounds", "0"],
    ["strategy", "--variant", "nosuch"],
])
def test_bad_input_is_one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err
