"""Issue 7 point 6: the pin map from configuration, validated with a clear message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import drivers.panel.pinmap  # noqa: F401  (registers the check, as `etg` does)
from etgcore.errors import ConfigError
from firmware.config import load_config

REPO = Path(__file__).resolve().parents[2]


def problem(*overrides: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(None, list(overrides))
    return info.value


def test_reference_wiring_and_shipped_table_toml_are_valid() -> None:
    assert load_config(None).panel.pins.rows == (5, 6, 12, 13, 16, 19, 20)
    load_config(REPO / "table.toml")


@pytest.mark.parametrize("pin", [2, 3, 14, 15])
def test_reserved_pins_refused(pin: int) -> None:
    """Panel ICD: BCM 2, 3 (I²C) and 14, 15 (UART) stay free."""
    err = problem(f"panel.pins.lamp_latch={pin}")
    assert err.key == "panel.pins.lamp_latch"
    assert f"BCM {pin} is reserved" in err.problem


def test_reserved_pin_in_a_row_names_its_index() -> None:
    err = problem("panel.pins.rows=[5, 6, 12, 13, 16, 19, 3]")
    assert err.key == "panel.pins.rows[6]"


def test_duplicate_pin_names_both_keys() -> None:
    err = problem("panel.pins.recall=27")
    assert err.key == "panel.pins.recall"
    assert "already used by panel.pins.columns[6]" in err.problem


def test_duplicate_inside_rows() -> None:
    err = problem("panel.pins.rows=[5, 6, 12, 13, 16, 19, 5]")
    assert err.key == "panel.pins.rows[6]" and "rows[0]" in err.problem


@pytest.mark.parametrize("value", ["28", "-1"])
def test_row_pin_out_of_range(value: str) -> None:
    err = problem(f"panel.pins.rows=[5, 6, 12, 13, 16, 19, {value}]")
    assert err.key == "panel.pins.rows[6]" and "0 to 27" in err.problem


def test_scalar_pin_out_of_range_caught_by_the_schema() -> None:
    err = problem("panel.pins.deal=30")
    assert err.key == "panel.pins.deal"


def test_columns_must_be_eight() -> None:
    err = problem("panel.pins.columns=[21, 22, 23, 24, 25, 26, 27]")
    assert err.key == "panel.pins.columns" and "exactly 8" in err.problem


def test_fewer_rows_than_seats_refused() -> None:
    """A seat count the map cannot serve."""
    err = problem("table.seats=6", "panel.pins.rows=[5, 6, 12, 13, 16]")
    assert err.key == "panel.pins.rows" and "table.seats = 6" in err.problem
    assert load_config(None, ["table.seats=5", "panel.pins.rows=[5, 6, 12, 13, 16]"])


def test_more_than_seven_rows_refused() -> None:
    err = problem("panel.pins.rows=[5, 6, 12, 13, 16, 19, 20, 0]")
    assert err.key == "panel.pins.rows" and "at most 7" in err.problem


def test_settling_must_fit_in_the_scan_period() -> None:
    err = problem("panel.scan_period_ms=2", "panel.settle_us=300")
    assert err.key == "panel.settle_us"


def test_etg_config_check_runs_the_pin_map_check() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "firmware", "--set", "panel.pins.deal=14", "config", "check"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1
    assert "panel.pins.deal: BCM 14 is reserved for UART TXD" in out.stderr
