"""issue 4 point 5, principle 7: forced RNG draws are a bench power.

A scenario's `draws` run only when the table configuration is in bench mode; with a
production configuration the runner's table refuses them, loudly, naming the reason.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.cli import main

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
BINGO = SCENARIOS / "bingo" / "01-blackjack-on-21-at-10x.toml"


def test_scenario_draws_accepted_in_bench_mode(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["--set", "table.mode=bench", "bench", "run", "--mode", "engine", str(BINGO)])
    out = capsys.readouterr().out
    assert rc == 0 and out.splitlines()[-1] == "1 passed, 0 failed"


def test_scenario_draws_refused_by_a_production_configuration(
    capsys: pytest.CaptureFixture[str],
) -> None:
    production = ["--set", "table.mode=production", "--set", "shoe.port=/dev/etg-shoe",
                  "--set", "panel.backend=gpio"]  # a production configuration needs hardware
    rc = main([*production, "bench", "run", "--mode", "engine", str(BINGO)])
    out = capsys.readouterr().out
    assert rc == 1
    fail = out.splitlines()[0]
    assert fail.startswith("FAIL ") and "bench power" in fail and "production" in fail
    assert "Traceback" not in out
