"""The HIL bench's service runs on the table's own configuration (issue 48, finding 4:
it wrote its own shoe settings and service configuration, so a table setting never
reached it); only what a bench must change is changed."""

from __future__ import annotations

from firmware.bench.hil_config import service_sections
from firmware.bench.hil_target import HilTarget
from firmware.bench.scenario import Scenario

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
