"""The HIL bench's service runs on the table's own configuration (issue 48, finding 4:
it wrote its own shoe settings and service configuration, so a table setting never
reached it); only what a bench must change is changed."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from firmware.bench.hil_config import TAKEN, bench_rules, service_sections, table_sections
from firmware.bench.hil_service import ServiceError, config_text
from firmware.bench.hil_target import HilTarget
from firmware.bench.scenario import Scenario
from firmware.config import load_config

ROOT = Path(__file__).resolve().parents[2]

TABLE = {
    "table": {"variant": "blackjack", "seats": 7, "certificate_holder": "Riverside"},
    "shoe": {"port": "/dev/etg-shoe", "sim_pace_s": 0.5},
    "panel": {"backend": "gpio", "debounce_ms": 12},
    "rules": {"decks": 8, "min_wager": 1000},
    "journal": {"path": "/var/lib/etg/journal.sqlite"},
    "floor": {"broker": "floor.casino:8883"},
}


def _scenario() -> Scenario:
    return Scenario("x.toml", "a test", "free-bet", {"decks": 6})


def test_finding_4_a_table_setting_reaches_the_bench_service() -> None:
    out = service_sections(TABLE, _scenario(), 6, "/dev/pts/9")
    assert out["table"] == {"variant": "free-bet", "seats": 6, "certificate_holder": "Riverside"}
    assert out["shoe"] == {"port": "/dev/pts/9", "sim_pace_s": 0.5}
    assert out["panel"] == {"backend": "sim", "debounce_ms": 12, "scan_period_ms": 1.0}
    assert out["rules"] == {"decks": 6, "min_wager": 1000}  # the scenario's over the table's
    assert "journal" not in out and "floor" not in out  # never the table's own journal
    assert TABLE["shoe"]["port"] == "/dev/etg-shoe"  # the table's configuration untouched


def test_the_target_keeps_the_table_it_is_given() -> None:
    assert HilTarget(table=TABLE).table is TABLE and HilTarget().table == {}


def test_the_table_sections_are_the_configuration_in_force(tmp_path: Path) -> None:
    """What the bench is handed reads back, as a configuration file, to the very settings
    the table loaded (the file, its ``--set`` overrides and the defaults)."""
    cfg = load_config(None, ['table.mode="bench"', "rules.decks=2", "shoe.sim_pace_s=0.4",
                             'table.certificate_holder="Riverside"'])
    sections = table_sections(cfg)
    assert set(sections) == set(TAKEN)
    path = tmp_path / "table.toml"
    path.write_text(config_text(sections), encoding="utf-8")
    again = load_config(path)
    for name in TAKEN:
        assert getattr(again, name) == getattr(cfg, name), name


def test_a_table_rule_of_another_game_stays_the_tables() -> None:
    """A Free Bet table's ``push22`` means nothing to a Blackjack scenario (the service
    would refuse it): only the keys the scenario's game has are taken."""
    table = {"rules": {"push22": True, "min_wager": 1000}}
    blackjack = Scenario("x.toml", "a test", "blackjack", {})
    assert bench_rules(table, blackjack) == {"min_wager": 1000}
    free_bet = Scenario("x.toml", "a test", "free-bet", {"min_wager": 500})
    assert bench_rules(table, free_bet) == {"push22": True, "min_wager": 500}


class _Recorder:
    """Stands in for the bench service: records the sections it would run on."""

    made: ClassVar[list[dict[str, Any]]] = []

    def __init__(self, sections: Mapping[str, Mapping[str, Any]], **kw: Any) -> None:
        self.made.append({k: dict(v) for k, v in sections.items()})

    def start(self) -> None:
        raise ServiceError("recorded, not started")

    def cleanup(self) -> None:
        pass


@pytest.mark.parametrize("sas_host", [False, True])
def test_finding_4_bench_run_hil_takes_the_tables_config_and_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], sas_host: bool) -> None:
    """``etg --config FILE --set ... bench run --mode hil``: a setting of the table's file
    and one given with ``--set`` both reach the service the bench starts (they did not:
    the bench wrote its own configuration)."""
    from firmware.bench import hil_target
    from firmware.cli import main

    monkeypatch.setattr(hil_target, "ServiceProcess", _Recorder)
    _Recorder.made.clear()
    conf = tmp_path / "table.toml"
    conf.write_text('[table]\nmode = "bench"\ncertificate_holder = "Riverside"\n'
                    '[shoe]\nsim_pace_s = 0.4\n[panel]\ndebounce_ms = 25.0\n'
                    '[rules]\nmin_wager = 1000\n', encoding="utf-8")
    scenario = ROOT / "tests" / "scenarios" / "blackjack" / "01-dealing-order-stand-win.toml"
    argv = ["--config", str(conf), "--set", "rules.max_wager=200000", "--set",
            'table.table_id="BJ-77"', "bench", "run", "--mode", "hil", str(scenario)]
    if sas_host:
        argv.append("--sas-host")
    assert main(argv) == 1  # the stand-in service never starts: the scenario fails
    capsys.readouterr()
    assert _Recorder.made, "the bench never built its service"
    got = _Recorder.made[0]
    assert got["table"]["certificate_holder"] == "Riverside"  # the file's
    assert got["table"]["table_id"] == "BJ-77"  # --set
    assert got["shoe"]["sim_pace_s"] == 0.4 and got["panel"]["debounce_ms"] == 25.0
    assert got["rules"]["min_wager"] == 1000 and got["rules"]["max_wager"] == 200000
    assert got["panel"]["backend"] == "sim" and got["shoe"]["port"] != "sim"  # the bench's
    assert ("sas" in got) is sas_host


def test_bench_run_hil_refuses_a_production_configuration(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from firmware.cli import main

    scenario = ROOT / "tests" / "scenarios" / "blackjack" / "01-dealing-order-stand-win.toml"
    assert main(["--set", 'table.mode="production"', "--set", 'shoe.port="/dev/null"',
                 "--set", 'panel.backend="gpio"', "bench", "run", "--mode", "hil",
                 str(scenario)]) == 2
    assert "production" in capsys.readouterr().err
