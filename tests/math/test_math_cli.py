"""The `etg strategy`, `etg par` and `etg rtp` commands."""

from __future__ import annotations

import json
from pathlib import Path

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
    # one task, as long as the run: not the size of a full task (issue 38, item 15)
    assert out["tasks"] == 1 and out["task_rounds"] == out["last_task_rounds"] == 500


def test_rtp_says_how_the_run_was_cut_as_it_was(capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.math.simulation.rtp import CHUNK, tasks_text

    assert main(["rtp", "--rounds", str(CHUNK + 300), "--seed", "1", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert f"2 tasks: 1 of {CHUNK:,} rounds and the last of 300, task i" in out
    assert tasks_text(1, 1_000_000, 1_000_000) == "1 task of 1,000,000 rounds"
    assert tasks_text(3, 4_000_000, 4_000_000) == "3 tasks of 4,000,000 rounds"


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


def _fresh_analysis(monkeypatch: pytest.MonkeyPatch, cache_dir: Path) -> None:
    """No analysis, strategy or Split to Double result kept from an earlier test: the
    stages run (a cached result shows none)."""
    from firmware.math.games import house_edge as analysis
    from firmware.math.games.split_to_double import hand_values as std
    from firmware.math.strategy import basic as strategy

    monkeypatch.setenv("ETG_CACHE_DIR", str(cache_dir))
    analysis._analyse_cached.cache_clear()
    std.std_solve_strategy.cache_clear()
    strategy._cached.cache_clear()


@pytest.mark.parametrize(("variant", "stage_done"), [
    ("blackjack", "par blackjack, return: 10/10 up cards (100%)"),
    ("split-to-double", "par split-to-double, return, card by card: "),
])
def test_par_progress_of_the_analysis_on_stderr(
        variant: str, stage_done: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fresh_analysis(monkeypatch, tmp_path)
    assert main(["par", "--variant", variant, "--progress", "--json"]) == 0
    got = capsys.readouterr()
    assert json.loads(got.out)["rules"]["variant"] == variant  # stdout: the JSON only
    assert f"par {variant}, strategy: 10/10 up cards (100%)" in got.err
    assert stage_done in got.err
    # not asked and not a terminal: no progress
    _fresh_analysis(monkeypatch, tmp_path / "again")
    assert main(["par", "--variant", variant, "--json"]) == 0
    assert f"par {variant}," not in capsys.readouterr().err
