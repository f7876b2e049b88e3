"""Issue 46 point 9: the HIL bench can run with a slot system's host polling every seat
at a real host's pace while the scenario plays (`etg bench run --mode hil --sas-host`);
the scenario still passes on its own terms, and answers that miss the protocol's
deadline fail it.

The machine these tests run on is shared (a load of 6 on 2 cores is common): a scenario of
a few seconds gives a host only some 20 polls, whose p99 is their maximum, and one answer
delayed by another process's burst would fail it. So the runs that must PASS hold the
answers to a second here (the wiring and the scenario's own result are what they check);
the 20 ms deadline itself is held by `make bench` (`python -m benchmarks sas`, hundreds of
polls) and its use here by the late-answers test."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.bench.hil_sas import SasHilTarget, run_one_with_host
from firmware.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "tests" / "scenarios" / "blackjack" / "07-double-down-one-card.toml"


@pytest.fixture
def lenient(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SasHilTarget, "deadline_ms", 1000.0)


def test_point_9_the_hil_bench_plays_a_scenario_with_a_host_polling_every_seat(
        lenient: None) -> None:
    made: list[SasHilTarget] = []

    def make() -> SasHilTarget:
        made.append(SasHilTarget())
        return made[-1]

    result = run_one_with_host(str(GOOD), make)
    assert result.passed, result.problems
    (check,) = made[0].sas_checks
    assert check.ok, check.detail
    answered = int(check.detail.split()[0])
    assert answered >= made[0].rules.max_seats  # type: ignore[union-attr]  # every seat polled


def test_late_answers_fail_the_scenario() -> None:
    """The host's timing is a problem of the file's result, not a line nobody reads."""

    class Late(SasHilTarget):
        def stop(self) -> None:
            if self.sas is not None:
                self.sas.latencies += [45.0] * (len(self.sas.latencies) + 10)
            super().stop()

    result = run_one_with_host(str(GOOD), Late)
    assert not result.passed
    assert SasHilTarget.deadline_ms == 20.0
    assert any("SAS answers within 20 ms at p99" in p for p in result.problems)


def test_sas_host_needs_the_hil_mode(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", "--sas-host", str(GOOD)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--mode hil" in err[0]


def test_the_cli_runs_the_hil_bench_with_a_host(
        lenient: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", "--mode", "hil", "--sas-host", str(GOOD)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"PASS {GOOD}: ") and out[-1] == "1 passed, 0 failed"
