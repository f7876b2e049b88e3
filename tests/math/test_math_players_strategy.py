"""The automatic players' strategy read back from the math cache decides as the solve.

A table started with auto-play reads the card-removal strategy's rankings from the cache
instead of solving again; what it reads must answer every decision as the solved
strategy does, and a file that is not a strategy's must neither run code nor be used.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from firmware.engine import load_rules
from firmware.math.strategy import on_disk as ps
from firmware.math.strategy.basic import strategy_for

LEGAL = ["hit", "stand", "double", "split", "surrender"]


def _hands() -> list[tuple[int, tuple[int, ...], list[str]]]:
    out = []
    for up in range(1, 11):
        for a in range(1, 11):
            for b in range(a, 11):
                out.append((up, (a, b), LEGAL if a == b else LEGAL[:3]))
        for three in ((2, 3, 4), (5, 2, 6), (1, 2, 3), (10, 2, 2)):
            out.append((up, three, ["hit", "stand"]))
    return out


@pytest.mark.parametrize("variant", ["blackjack", "spanish21"])
def test_the_cached_strategy_decides_as_the_solve(variant: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ETG_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ETG_NO_CACHE", raising=False)
    rules = load_rules(variant)
    first = ps.players_strategy(rules)  # solved, and written to the cache
    (kept,) = tmp_path.glob("players-*.pickle")
    again = ps.players_strategy(rules)  # read back
    assert again is not first and again.solved == {} and again.ups.keys() == first.ups.keys()
    solved = strategy_for(rules)
    for up, cards, legal in _hands():
        assert again.decide(up, cards, legal) == solved.decide(up, cards, legal), (up, cards)
    assert kept.stat().st_size < 1_000_000


class _Planted:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("planted code ran",))


def test_a_planted_file_runs_no_code_and_is_solved_over(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    monkeypatch.setenv("ETG_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ETG_NO_CACHE", raising=False)
    rules = load_rules("blackjack")
    ps.players_strategy(rules)
    (kept,) = tmp_path.glob("players-*.pickle")
    kept.write_bytes(pickle.dumps({2: _Planted()}))
    got = ps.players_strategy(rules)
    assert "planted code ran" not in capsys.readouterr().out
    assert got.solved  # solved again, not read
    assert pickle.loads(kept.read_bytes()).keys() == got.ups.keys()  # and written anew
