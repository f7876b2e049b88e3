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
    assert all(c.ok for c in made[0].sas_checks), [c.detail for c in made[0].sas_checks]
    check = made[0].sas_checks[0]
    assert check.name.startswith("SAS answers within")
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


TWO_ROUNDS = ROOT / "tests" / "scenarios" / "blackjack" / "26-leftover-cards-next-round.toml"


def _killed_run(make: type[SasHilTarget] = SasHilTarget) -> tuple[object, SasHilTarget]:
    made: list[SasHilTarget] = []

    def factory() -> SasHilTarget:
        made.append(make(kill_every=1))
        return made[-1]

    return run_one_with_host(str(TWO_ROUNDS), factory), made[0]


def test_point_9_the_hil_bench_kills_and_restarts_the_table_under_a_polling_host(
        lenient: None) -> None:
    """kill -9 before every round, a host transfer in flight each time: the scenario
    still passes, and the host's checks hold across the restarts: every meter it read
    (at the still instants before each round, after each restart, at the end) equals the
    journal's, every exception arrived once and in the journal's order, each transfer
    (sent, killed, sent again with its id; then taken back out) applied exactly once."""
    result, target = _killed_run()
    assert result.passed, result.problems  # type: ignore[attr-defined]
    assert target.kills == 2
    checks = {c.name: c for c in target.sas_checks}
    assert all(c.ok for c in checks.values()), [c.detail for c in checks.values()]
    assert set(checks) == {"SAS answers within 1000 ms at p99", "SAS transfers exactly once",
                           "SAS exceptions once and in order", "SAS meters equal etg meters"}
    assert checks["SAS transfers exactly once"].detail.startswith(
        "4 the host was told succeeded, 4 applied, 0 twice")
    reads = int(checks["SAS meters equal etg meters"].detail.split()[0])
    assert reads >= 5 * 6 * 7  # 5 still instants x 6 meters x 7 seats
    n = int(checks["SAS exceptions once and in order"].detail.split()[0])
    assert n >= 3 * 7  # at least each start's power-up at every seat


def test_the_host_checks_catch_a_repeated_exception_and_a_wrong_meter(
        lenient: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks can fail: an exception received twice and a meter read one cent off
    each turn the scenario's result into a FAIL naming the check."""
    import firmware.bench.soak_sas as soak_sas

    class Twice(SasHilTarget):
        def stop(self) -> None:
            if self.sas is not None:
                got = self.sas.received[1]
                got.insert(1, got[0])  # the first exception heard twice
            super().stop()

    real = soak_sas.from_bcd
    monkeypatch.setattr(soak_sas, "from_bcd", lambda b: real(b) + 1)
    result, _target = _killed_run(Twice)
    problems = result.problems  # type: ignore[attr-defined]
    assert any(p.startswith("SAS exceptions once and in order: ") and "address 1" in p
               for p in problems), problems
    assert any(p.startswith("SAS meters equal etg meters: ") for p in problems), problems


def test_kill_every_needs_the_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", "--mode", "hil", "--kill-every", "1", str(GOOD)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--sas-host" in err[0]
